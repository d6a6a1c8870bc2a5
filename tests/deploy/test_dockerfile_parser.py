"""The small Dockerfile reader the image checks rely on."""

from __future__ import annotations

from pathlib import Path

import pytest

from .dockerfile import parse

SAMPLE = """\
# syntax=docker/dockerfile:1
ARG BASE=x
FROM node:20.19.0-bookworm-slim AS web
WORKDIR /src
COPY --chown=1:1 a.json \\
     b.json ./
RUN npm ci \\
# a comment inside a continuation is dropped
 && npm run build
FROM python:3.11.10-slim-bookworm
COPY --from=web /src/dist/ dist/
ENTRYPOINT ["tini", "--"]
CMD basketbench serve --port 8000
"""


def test_stages_continuations_flags_and_forms(tmp_path: Path) -> None:
    path = tmp_path / "Dockerfile"
    path.write_text(SAMPLE)
    df = parse(path)
    assert [(s.image, s.name) for s in df.stages] == [
        ("node:20.19.0-bookworm-slim", "web"),
        ("python:3.11.10-slim-bookworm", None),
    ]
    assert [i.keyword for i in df.instructions] == [
        "ARG", "FROM", "WORKDIR", "COPY", "RUN", "FROM", "COPY", "ENTRYPOINT", "CMD",
    ]
    assert df.instructions[0].stage == -1  # ARG before the first FROM
    copy = df.of("COPY")[0]
    assert copy.line == 5 and copy.stage == 0
    assert copy.flags == {"chown": "1:1"} and copy.args == ["a.json", "b.json", "./"]
    run = df.of("RUN")[0]
    assert run.value == "npm ci && npm run build"
    assert df.of("COPY")[1].flags == {"from": "web"}
    entry, cmd = df.final("ENTRYPOINT"), df.final("CMD")
    assert entry is not None and entry.is_exec_form and entry.args == ["tini", "--"]
    assert cmd is not None and not cmd.is_exec_form
    assert cmd.args == ["basketbench", "serve", "--port", "8000"]


def test_bad_input_is_an_error(tmp_path: Path) -> None:
    dangling = tmp_path / "dangling"
    dangling.write_text("FROM debian:12\nRUN true \\\n")
    with pytest.raises(ValueError, match="continuation at end of file"):
        parse(dangling)
    not_strings = tmp_path / "not-strings"
    not_strings.write_text('FROM debian:12\nCMD ["a", 1]\n')
    cmd = parse(not_strings).final("CMD")
    assert cmd is not None
    with pytest.raises(ValueError, match="JSON array of strings"):
        _ = cmd.args
