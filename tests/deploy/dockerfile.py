"""A small Dockerfile reader for static checks: instructions, stages, COPY sources.

Handles what our Dockerfiles use: parser directives, comments, backslash line
continuations, JSON (exec) and shell forms, `--flag=value` options, multi-stage
`FROM image AS name`.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case: FROM, RUN, COPY, ...
    value: str  # the rest of the logical line, continuations joined
    line: int  # 1-based line where it starts
    stage: int  # index of the build stage it belongs to (-1 before the first FROM)

    @property
    def flags(self) -> dict[str, str]:
        return _split_flags(self.value)[0]

    @property
    def args(self) -> list[str]:
        """Arguments: JSON array in exec form, else shell-split words (flags removed)."""
        rest = _split_flags(self.value)[1]
        if rest.lstrip().startswith("["):
            parsed = json.loads(rest)
            if not isinstance(parsed, list) or not all(isinstance(a, str) for a in parsed):
                raise ValueError(f"line {self.line}: exec form must be a JSON array of strings")
            return parsed
        return shlex.split(rest)

    @property
    def is_exec_form(self) -> bool:
        return _split_flags(self.value)[1].lstrip().startswith("[")


@dataclass(frozen=True)
class Stage:
    index: int
    image: str  # global ARG defaults substituted, e.g. python:3.11.10-slim-bookworm
    name: str | None
    written: str = ""  # as written, e.g. ${PYTHON_IMAGE}


@dataclass
class Dockerfile:
    path: Path
    instructions: list[Instruction] = field(default_factory=list)
    stages: list[Stage] = field(default_factory=list)

    def of(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword.upper()]

    def final(self, keyword: str) -> Instruction | None:
        """Last `keyword` instruction of the final stage (what the image runs)."""
        last = len(self.stages) - 1
        found = [i for i in self.of(keyword) if i.stage == last]
        return found[-1] if found else None


def _split_flags(value: str) -> tuple[dict[str, str], str]:
    flags: dict[str, str] = {}
    rest = value.strip()
    while rest.startswith("--"):
        word, _, tail = rest.partition(" ")
        name, _, val = word[2:].partition("=")
        flags[name] = val
        rest = tail.strip()
    return flags, rest


def parse(path: Path) -> Dockerfile:
    text = path.read_text()
    result = Dockerfile(path=path)
    stage = -1
    global_args: dict[str, str] = {}
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue  # comments and parser directives (# syntax=...) outside an instruction
        if pending and stripped.startswith("#"):
            continue  # comment lines inside a continuation are dropped by Docker too
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1].strip())
            continue
        pending.append(stripped)
        logical = " ".join(p for p in pending if p)
        pending = []
        keyword, _, value = logical.partition(" ")
        keyword = keyword.upper()
        if keyword == "ARG" and stage == -1:  # global build argument: usable in FROM
            arg, _, default = value.strip().partition("=")
            global_args[arg] = default
        if keyword == "FROM":
            stage += 1
            words = value.split()
            words = [w for w in words if not w.startswith("--")]
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else None
            image = re.sub(r"\$\{(\w+)\}|\$(\w+)",
                           lambda m: global_args.get(m.group(1) or m.group(2), m.group(0)),
                           words[0])
            result.stages.append(Stage(index=stage, image=image, name=name, written=words[0]))
        result.instructions.append(Instruction(keyword, value.strip(), start, stage))
    if pending:
        raise ValueError(f"{path}: line continuation at end of file")
    return result
