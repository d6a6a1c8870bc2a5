#!/usr/bin/env python3
"""Which zstd (and the other codec libraries) and which ROOT produced these results?

One GET /api/v1/results call; every item carries its provenance. Standard library only.

    python scripts/which_codecs.py --api http://localhost:8000 commit=<sha> dataset=nanoaod \
        setting=505 [--json]

Any /results filter may be given as key=value (machine, tag, dataset, setting, codec,
codec_set, root_version, run, limit, ...). Exit 1 when nothing matches, 2 on a bad call.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any


def fetch(api: str, filters: dict[str, str], token: str | None = None) -> list[dict[str, Any]]:
    url = api.rstrip("/") + "/api/v1/results?" + urllib.parse.urlencode(filters)
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=60) as answer:
        items: list[dict[str, Any]] = json.load(answer)["items"]
    return items


def describe(item: dict[str, Any]) -> dict[str, Any]:
    """The answer for one result: its numbers' codec versions, ROOT, harness and build."""
    p = item["provenance"]
    codecs = p["measured_codecs"]
    if p["root_version"]:
        root = f"ROOT {p['root_version']}"
    elif p["root_commit"]:
        root = f"ROOT commit {p['root_commit']}"
    else:
        root = "no ROOT code (rootcompat: basketbench's own RZip.h layer)"
    return {
        "result": item["id"], "commit": item["commit"], "machine": item["machine"],
        "machine_version": p["machine_version"], "dataset": item["dataset"],
        "setting": item["setting"], "compressed_bytes": item["compressed_bytes"],
        "zstd": codecs["zstd"], "lz4": codecs["lz4"], "lzma": codecs["lzma"],
        "zlib": codecs["zlib"], "xxhash": codecs["xxhash"], "root": root,
        "codec_set": p["codec_set"], "harness": p["harness"], "harness_hash": p["harness_hash"],
        "build_profile": p["build_profile"], "build_profile_version": p["build_profile_version"],
    }


def line(d: dict[str, Any]) -> str:
    build = (f"build profile {d['build_profile']} v{d['build_profile_version']}"
             if d["build_profile"] else "build profile unknown")
    harness = d["harness"] or "harness unknown"
    if d["harness_hash"]:
        harness += f" (sources {d['harness_hash'][:16]})"
    return (f"result {d['result']} ({d['dataset']}, setting {d['setting']}, "
            f"{d['compressed_bytes']} B, commit {d['commit'][:12]}, {d['machine']} "
            f"v{d['machine_version']}): zstd {d['zstd']}, lz4 {d['lz4']}, lzma {d['lzma']}, "
            f"zlib {d['zlib']}; {d['root']}; codec set {d['codec_set']}; {harness}; {build}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--api", required=True, help="the server, e.g. http://localhost:8000")
    parser.add_argument("--token", help="API token, when reads need one")
    parser.add_argument("--json", action="store_true", help="one JSON object per result")
    parser.add_argument("filters", nargs="*", metavar="KEY=VALUE", help="/results filters")
    args = parser.parse_args(argv)
    filters = {}
    for item in args.filters:
        key, sep, value = item.partition("=")
        if not sep or not key:
            parser.error(f"filter {item!r}: expected KEY=VALUE")
        filters[key] = value
    try:
        items = fetch(args.api, filters, args.token)
    except urllib.error.HTTPError as exc:
        print(f"error: {exc.code} {exc.read().decode(errors='replace')}", file=sys.stderr)
        return 2
    except urllib.error.URLError as exc:
        print(f"error: cannot reach {args.api}: {exc.reason}", file=sys.stderr)
        return 2
    for d in map(describe, items):
        print(json.dumps(d) if args.json else line(d))
    return 0 if items else 1


if __name__ == "__main__":
    raise SystemExit(main())
