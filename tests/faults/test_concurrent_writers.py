"""Concurrent writers against a real API process: the same document for a new commit from
8 clients, 20 new commits at once, a chain of 20 commits pushed in random order, and 8
simultaneous registrations of one machine. Never a 500, nothing stored twice, and commit
order follows the git parents whatever order the writes arrive in."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from .conftest import Api, Launcher, report, timed

pytestmark = [pytest.mark.integration]

RACE_ENV = {"BASKETBENCH_DB_POOL_SIZE": "6", "BASKETBENCH_DB_MAX_OVERFLOW": "4",
            "BASKETBENCH_DB_POOL_TIMEOUT": "60"}


MACHINE = {
    "hostname": "race-01", "arch": "x86_64", "cpu_model": "race cpu", "vendor": "GenuineIntel",
    "family": 6, "model": 63, "isa": {"sse4_2": True, "avx2": True, "avx512f": False,
                                      "pclmul": True, "crc32": True},
    "caches": {"l1d": 32768, "l2": 262144, "l3": 31457280}, "cores_logical": 2,
    "cores_physical": 1, "kernel": "6.1.0", "governor": "performance", "boost": False,
    "compiler": "gcc 12.2.0", "compiler_flags": "-O2",
    "libraries": {"zlib": "1.3.1", "zstd": "1.5.5", "lz4": "1.9.4", "lzma": "5.4.1"},
    "fingerprint_hash": "feedbeef00000001",
}


@pytest.fixture(scope="module")
def api(module_launcher: Launcher) -> Api:
    return module_launcher.start(**RACE_ENV)


def sha() -> str:
    return hashlib.sha1(uuid.uuid4().bytes).hexdigest()


def document(commit: str, repository: str, machine: str = "race-01") -> dict[str, Any]:
    samples = [100.0, 101.0, 99.0]
    stats = {"median": 100.0, "min": 99.0, "max": 101.0, "mean": 100.0, "stddev": 1.0,
             "cv": 0.01, "samples": samples}
    return {
        "schema_version": "1", "tool": {"name": "rzbench", "version": "0.1.0"},
        "created_at": "2026-11-20T12:00:00Z", "backend": "rootcompat", "root_commit": None,
        "context": {"repository": repository, "commit": commit, "machine": machine,
                    "tag": "race"},
        "machine": dict(MACHINE),
        "parameters": {"min_samples": 3, "target_pass_ms": 100, "interleaved": True},
        "datasets": [{"name": "synthetic", "source": "gen", "bytes": 1000, "baskets": 1,
                      "checksum": "xxh64:0123456789abcdef"}],
        "results": [{"dataset": "synthetic", "codec": "zlib", "setting": 101, "algorithm": 1,
                     "level": 1, "preconditioner": "none", "dictionary_size": 0,
                     "basket_size": 0, "mode": "basket", "threads": 1,
                     "uncompressed_bytes": 1000, "compressed_bytes": 500, "ratio": 2.0,
                     "compress_mbps": stats, "decompress_mbps": stats,
                     "roundtrip_ok": True, "error": None}],
    }


def post_all(calls: list[Callable[[], httpx.Response]]) -> list[httpx.Response]:
    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda c: c(), calls))


def orders(api: Api, repository: str) -> dict[str, int]:
    return dict(api.sql('SELECT c.sha, c."order" FROM commits c JOIN repositories r '
                        "ON r.id = c.repository_id WHERE r.name = %s", repository))


def test_same_document_from_eight_clients_is_stored_once(api: Api) -> None:
    repo, commit = f"race/{uuid.uuid4().hex[:8]}", sha()
    body = json.dumps(document(commit, repo)).encode()
    post = lambda: httpx.post(api.api + "/results", content=body, timeout=120,  # noqa: E731
                              headers={**api.headers, "Content-Type": "application/json"})
    answers, seconds = timed(lambda: post_all([post] * 8))  # type: ignore[arg-type,return-value]
    report("8 clients, same document for a new commit", seconds)
    codes = Counter(a.status_code for a in answers)  # type: ignore[attr-defined]
    assert set(codes) <= {200, 201}, [a.text for a in answers]  # type: ignore[attr-defined]
    duplicates = [a.json()["duplicate"] for a in answers]  # type: ignore[attr-defined]
    assert duplicates.count(False) == 1
    of_commit = " JOIN commits c ON c.id = x.commit_id WHERE c.sha = %s"
    assert api.sql("SELECT count(*) FROM result_documents x" + of_commit, commit)[0][0] == 1
    assert api.sql("SELECT count(*) FROM results x" + of_commit, commit)[0][0] == 1
    assert api.sql("SELECT count(*) FROM commits WHERE sha = %s", commit)[0][0] == 1
    assert api.sql("SELECT count(*) FROM machines WHERE name = 'race-01'")[0][0] == 1


def test_twenty_new_commits_at_once_get_distinct_orders(api: Api) -> None:
    repo = f"race/{uuid.uuid4().hex[:8]}"
    # The repository exists first (as it does once anything was stored for it).
    first = sha()
    r = httpx.post(api.api + "/results", json=document(first, repo), headers=api.headers,
                   timeout=60)
    assert r.status_code == 201, r.text
    shas = [sha() for _ in range(20)]
    calls = [lambda s=s: httpx.post(api.api + "/results", json=document(s, repo),
                                    headers=api.headers, timeout=120) for s in shas]
    answers, seconds = timed(lambda: post_all(calls))  # type: ignore[arg-type,return-value]
    report("20 documents for 20 new commits at once", seconds)
    assert {a.status_code for a in answers} == {201}, [a.text for a in answers]  # type: ignore[attr-defined]
    stored = orders(api, repo)
    assert len({stored[s] for s in shas}) == 20
    assert min(stored[s] for s in shas) > stored[first]


def push(api: Api, repo: str, commit: str, parent: str) -> httpx.Response:
    payload = {"ref": "refs/heads/master", "before": parent, "after": commit,
               "repository": {"full_name": repo},
               "commits": [{"id": commit, "message": "m", "timestamp": "2026-03-02T10:00:00Z",
                            "author": {"name": "a", "email": "a@b.invalid"}}]}
    body = json.dumps(payload).encode()
    sig = hmac.new(b"fault-secret", body, hashlib.sha256).hexdigest()
    return httpx.post(api.api + "/webhooks/github", content=body, timeout=120, headers={
        "Content-Type": "application/json", "X-GitHub-Event": "push",
        "X-GitHub-Delivery": str(uuid.uuid4()), "X-Hub-Signature-256": f"sha256={sig}"})


def test_a_chain_pushed_in_random_order_is_ordered_by_its_parents(
    api: Api,
) -> None:
    tag = "race-" + uuid.uuid4().hex[:6]
    r = httpx.post(api.api + "/machines", headers=api.headers, timeout=30,
                   json={"name": "chain", "tag": tag, "fingerprint": {"cpu": "c"}})
    assert r.status_code == 201, r.text
    repo = f"race/{uuid.uuid4().hex[:8]}"
    chain = [sha() for _ in range(21)]
    assert push(api, repo, chain[0], "0" * 40).status_code == 202
    links = [(chain[i], chain[i - 1]) for i in range(1, 21)]
    random.Random(13).shuffle(links)
    answers, seconds = timed(lambda: post_all(  # type: ignore[arg-type,return-value]
        [lambda c=c, p=p: push(api, repo, c, p) for c, p in links]))
    report("20 pushes of a commit chain, shuffled, at once", seconds)
    assert {a.status_code for a in answers} == {202}, [a.text for a in answers]  # type: ignore[attr-defined]
    stored = orders(api, repo)
    along = [stored[c] for c in chain]
    assert along == sorted(along) and len(set(along)) == 21, along  # parents first, distinct
    # One run per new commit and tag: nothing created twice.
    of_repo = (" JOIN commits c ON c.id = x.commit_id JOIN repositories r"
               " ON r.id = c.repository_id WHERE r.name = %s")
    mine = of_repo + " AND x.tag = %s"
    assert api.sql("SELECT count(*) FROM runs x" + mine, repo, tag)[0][0] == 21
    assert api.sql("SELECT count(*) FROM run_dispatches d JOIN runs x ON x.id = d.run_id"
                   + mine, repo, tag)[0][0] == 21


def test_eight_simultaneous_registrations_make_one_machine(
    api: Api,
) -> None:
    name = "reg-" + uuid.uuid4().hex[:6]

    def register(fp: str) -> httpx.Response:
        return httpx.post(api.api + "/machines", headers=api.headers, timeout=60,
                          json={"name": name, "tag": "reg", "fingerprint": {"cpu": fp}})

    same = post_all([lambda: register("one")] * 8)
    assert {a.status_code for a in same} <= {200, 201}, [a.text for a in same]
    assert len({a.json()["id"] for a in same}) == 1
    # Four new fingerprints at once: four new versions, numbered without gaps or clashes.
    new = post_all([lambda f=f: register(f) for f in ("a", "b", "c", "d")])
    assert {a.status_code for a in new} == {201}, [a.text for a in new]
    versions = sorted(v for (v,) in api.sql("SELECT version FROM machines WHERE name = %s",
                                            name))
    assert versions == [1, 2, 3, 4, 5]
    assert api.sql("SELECT count(*) FROM machines WHERE name = %s AND active", name)[0][0] == 1
