"""POST /arena-runs (a `basketbench-arena-v1` document from `basketbench arena --json` or the
worker's arena stage), GET /arena (the latest board per file and machine) and
GET /arena/history (one row over ROOT commits): strict validation with reasons, idempotent
resubmission, nothing half-written, and every number served as stored."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from basketbench.models import ArenaResult, ArenaRun
from bb_factories import (
    arena_document,
    document,
    post_result_document,
    post_webhook,
    push_payload,
    sha,
)
from sqlalchemy import func, select


@pytest.fixture
def world(client: Any, auth: dict[str, str]) -> tuple[int, list[str]]:
    """A machine (registered by a result upload) and three commits in git order."""
    shas = [sha(i, "arena") for i in range(3)]
    assert post_webhook(client, "push", push_payload(shas), "arena").status_code == 202
    stored = post_result_document(client, auth, document(commit=shas[0]))
    return int(stored["machine_id"]), shas


def post(client: Any, auth: dict[str, str], body: Any) -> Any:
    return client.post("/api/v1/arena-runs", json=body, headers=auth)


def counts(session: Any) -> tuple[int, int]:
    return (session.scalar(select(func.count()).select_from(ArenaRun)) or 0,
            session.scalar(select(func.count()).select_from(ArenaResult)) or 0)


def test_upload_stores_every_row_and_is_idempotent(client, auth, session, world):
    machine_id, shas = world
    body = {"machine_id": machine_id, "commit": shas[1], "document": arena_document()}
    first = post(client, auth, body)
    assert first.status_code == 201, first.text
    # 7 whole-file rows, 2 shape rows, 17 zstd + 12 lz4 level-mapping rows
    assert first.json() == {"arena_run_id": first.json()["arena_run_id"], "results": 38,
                            "duplicate": False}
    again = post(client, auth, body)
    assert again.status_code == 200, again.text
    assert again.json() == {**first.json(), "duplicate": True}
    assert counts(session) == (1, 38)


def test_board_serves_the_document_numbers(client, auth, world):
    machine_id, shas = world
    doc = arena_document()
    assert post(client, auth, {"machine_id": machine_id, "commit": shas[1],
                               "document": doc}).status_code == 201
    answer = client.get("/api/v1/arena", params={"file": doc["file"], "machine": machine_id})
    assert answer.status_code == 200, answer.text
    [board] = answer.json()["boards"]
    run = board["run"]
    assert (run["file"], run["commit"], run["format"], run["buffers"]) == (
        doc["file"], shas[1], "ttree", 120)
    assert run["load"] == doc["load"] and run["host"] == doc["machine"]
    assert [c["candidate"] for c in run["candidates"]] == [
        c["candidate"] for c in doc["candidates"]]
    served = {(r["candidate"], r["level"], r["reference_setting"]): r for r in board["results"]}
    assert len(served) == len(doc["results"])
    for row in doc["results"]:
        got = served[(row["candidate"], row["level"], row["reference_setting"])]
        for key in ("family", "compressed_bytes", "reference_bytes", "size_change_pct",
                    "roundtrip_ok", "root_readable", "compress_ratio", "decompress_ratio",
                    "compress_instructions", "reference_decompress_instructions"):
            assert got[key] == row[key], key
        assert got["shape"] is None
    assert board["shapes"] == []  # only when asked for
    assert [r["level"] for r in board["level_mapping"]["zstd"]] == list(range(3, 20))
    assert [r["level"] for r in board["level_mapping"]["lz4"]] == list(range(1, 13))
    ten = next(r for r in board["level_mapping"]["zstd"] if r["level"] == 10)
    # 505 runs zstd 10: its mapping row is ROOT's own setting, the whole-file row's numbers
    assert (ten["candidate"], ten["root_setting"], ten["size_change_pct"]) == ("zstd", 505, 0)
    assert ten["roundtrip_ok"] is True and ten["identical_to_reference"] is True
    assert run["reference"] == {"label": "host", "codec_versions": doc["reference"][
        "codec_versions"]}  # never the layer's path: it is the worker's
    assert run["shape_totals"]["offsets"] == {"buffers": 20, "bytes": 80_000}

    with_shapes = client.get("/api/v1/arena", params={"file": doc["file"], "shapes": "true",
                                                      "family": "zlib"}).json()["boards"][0]
    assert {r["family"] for r in with_shapes["results"]} == {"zlib"}
    assert [(r["candidate"], r["shape"]) for r in with_shapes["shapes"]] == [
        ("zlib-ng", "offsets")]
    assert with_shapes["level_mapping"] == {}  # the mappings are zstd's and lz4's

    index = client.get("/api/v1/arena", params={"results": "false"}).json()["boards"]
    assert [(b["run"]["file"], b["results"]) for b in index] == [(doc["file"], [])]


def test_board_is_the_newest_run_per_file_and_machine(client, auth, world):
    machine_id, shas = world
    for i, commit in enumerate(shas):
        assert post(client, auth, {"machine_id": machine_id, "commit": commit,
                                   "document": arena_document(seed=i)}).status_code == 201
    # a CLI run on the host's layer (no commit), of another file
    assert post(client, auth, {"machine_id": machine_id,
                               "document": arena_document("nano.root")}).status_code == 201
    boards = client.get("/api/v1/arena").json()["boards"]
    assert [(b["run"]["file"], b["run"]["commit"]) for b in boards] == [
        ("nano.root", None), ("uproot-HZZ.root", shas[2])]
    assert client.get("/api/v1/arena", params={"machine": "no-such-machine"}).json() == {
        "boards": []}


def test_history_follows_commits_in_git_order(client, auth, world):
    machine_id, shas = world
    # uploaded out of order: the history is in the commits' order, not the uploads'
    for i in (2, 0, 1):
        assert post(client, auth, {"machine_id": machine_id, "commit": shas[i],
                                   "document": arena_document(seed=i)}).status_code == 201
    assert post(client, auth, {"machine_id": machine_id,  # host layer: no commit, no point
                               "document": arena_document(seed=9)}).status_code == 201
    params = {"file": "uproot-HZZ.root", "machine": machine_id, "candidate": "zlib-ng",
              "level": 1, "reference_setting": 101}
    answer = client.get("/api/v1/arena/history", params=params)
    assert answer.status_code == 200, answer.text
    points = answer.json()["points"]
    assert [p["commit"] for p in points] == shas
    # reference bytes move with the seed: each point is its own run's numbers
    assert [p["reference_bytes"] for p in points] == [1_000_000 + i for i in range(3)]
    assert all(p["compress_ratio"]["median"] == 1.6 for p in points)

    mapped = client.get("/api/v1/arena/history", params={
        **params, "candidate": "zstd", "level": 3, "reference_setting": 505, "view": "mapping"})
    assert mapped.status_code == 200, mapped.text
    assert mapped.json()["points"][0]["size_change_pct"] == pytest.approx(6.0)
    shaped = client.get("/api/v1/arena/history", params={**params, "view": "shape",
                                                         "shape": "offsets"})
    assert shaped.status_code == 200 and len(shaped.json()["points"]) == 3

    missing = client.get("/api/v1/arena/history", params={**params, "level": 9})
    assert missing.status_code == 404 and "zlib-ng level 9" in missing.text
    no_shape = client.get("/api/v1/arena/history", params={**params, "view": "shape"})
    assert no_shape.status_code == 422


def _broken(mutate) -> dict[str, Any]:
    doc = arena_document()
    mutate(doc)
    return doc


@pytest.mark.parametrize(("mutate", "reason"), [
    (lambda d: d.update(schema="basketbench-arena-v2"), "document/schema"),
    (lambda d: d.update(file="/home/me/HZZ.root"), "document/file"),
    (lambda d: d.update(surprise=1), "document/surprise: Extra inputs"),
    (lambda d: d["results"][0].update(size_change_pct=-12.0), "size_change_pct -12.0 is not"),
    (lambda d: d["results"][0].update(roundtrip_ok="yes"), "roundtrip_ok"),
    (lambda d: d["results"][0].update(reference_setting=303), "not a ROOT setting"),
    (lambda d: d["results"][0]["compress_ratio"].update(ci_low=5.0), "does not hold"),
    (lambda d: d["results"][0].update(candidate="brotli"), "'brotli' is not in candidates"),
    (lambda d: d["results"].append(copy.deepcopy(d["results"][0])), "appears twice"),
    (lambda d: d["level_mapping"]["zstd"][0].update(reference_setting=404),
     "the zstd mapping holds zstd settings"),
    (lambda d: d["load"].update(loadavg_start=[1.0]), "document/load/loadavg_start"),
    (lambda d: d["results"][0].update(compressed_bytes=None), "size_change_pct needs both"),
    (lambda d: d["results"][0].update(compress_instructions=float("nan")), "finite"),
])
def test_bad_documents_are_refused_with_the_reason(client, auth, session, world, mutate,
                                                   reason):
    machine_id, shas = world
    body = {"machine_id": machine_id, "commit": shas[0], "document": _broken(mutate)}
    if reason == "finite":  # NaN is no JSON: sent as the JSON extension Python writes
        import json
        answer = client.post("/api/v1/arena-runs", content=json.dumps(body), headers={
            **auth, "Content-Type": "application/json"})
        assert answer.status_code in (400, 422), answer.text
    else:
        answer = post(client, auth, body)
        assert answer.status_code == 422, answer.text
        assert reason in answer.text, answer.text
    assert "Traceback" not in answer.text
    assert counts(session) == (0, 0)


@pytest.mark.parametrize(("body", "status", "reason"), [
    ([], 422, "a JSON object"),
    ({"machine_id": 999_999, "document": arena_document()}, 422, "no machine 999999"),
    ({"machine_id": 1, "commit": "xyz", "document": arena_document()}, 422, "commit"),
    ({"machine_id": 1, "run_id": 424242, "document": arena_document()}, 422, "no run 424242"),
])
def test_bad_envelopes_are_refused(client, auth, session, world, body, status, reason):
    answer = post(client, auth, body)
    assert answer.status_code == status, answer.text
    assert reason in answer.text
    assert counts(session) == (0, 0)


def test_upload_needs_a_machine_token_and_a_bounded_body(client, auth, world):
    machine_id, shas = world
    body = {"machine_id": machine_id, "document": arena_document()}
    assert client.post("/api/v1/arena-runs", json=body).status_code == 401
    huge = b'{"machine_id": 1, "document": "' + b"x" * (33 * 1024 * 1024) + b'"}'
    answer = client.post("/api/v1/arena-runs", content=huge, headers={
        **auth, "Content-Type": "application/json"})
    assert answer.status_code == 413, answer.text


def test_a_token_limited_to_other_tags_may_not_upload(client, auth, session, world):
    """A machine token limited to some hardware tags uploads for those machines only (as for
    results and A/B runs): 403 with the reason, nothing stored."""
    from basketbench.core.tokens import create_token
    from basketbench.models import Machine

    machine_id, shas = world
    tag = session.get(Machine, machine_id).tag
    _, other = create_token(session, "other-tags", "machine", tags=[tag + "-elsewhere"])
    _, own = create_token(session, "own-tag", "machine", tags=[tag])
    body = {"machine_id": machine_id, "commit": shas[1], "document": arena_document()}
    refused = post(client, {"Authorization": f"Bearer {other}"}, body)
    assert refused.status_code == 403, refused.text
    assert tag in refused.text and "Traceback" not in refused.text
    assert counts(session) == (0, 0)
    assert post(client, {"Authorization": f"Bearer {own}"}, body).status_code == 201
    assert counts(session) == (1, 38)


def test_the_worker_stage_envelope_is_accepted(client, auth, world):
    """What the worker's arena stage uploads (pipeline/arenastage.upload_body) is what the
    API stores: the commit measured, in the repository named."""
    from basketbench_workers.pipeline.arenastage import upload_body

    machine_id, shas = world
    repository = client.get("/api/v1/repositories").json()["items"][0]["name"]
    body = upload_body(arena_document(), machine_id, shas[2], repository, None)
    answer = post(client, auth, body)
    assert answer.status_code == 201, answer.text
    [board] = client.get("/api/v1/arena").json()["boards"]
    assert board["run"]["commit"] == shas[2] and board["run"]["run_id"] is None
