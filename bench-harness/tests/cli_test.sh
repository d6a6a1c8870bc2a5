#!/usr/bin/env bash
# End-to-end checks of the rzbench command line: synth -> corpus -> bench -> JSON valid against
# the schema, CSV/Markdown, exit codes 1/2 for failures and bad input.
set -euo pipefail
RZ="$1"
SRC="$2"
SCHEMA="$SRC/../backend/basketbench/measure/document/harness-result-v1.schema.json"
PY="$SRC/../.venv/bin/python"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$RZ" version | grep -q '"backend"' || fail "version"
"$RZ" fingerprint > "$T/fp.json"
grep -q '"fingerprint_hash"' "$T/fp.json" || fail "fingerprint"

"$RZ" synth tfloat -o "$T/tfloat.bbc"
[ -s "$T/tfloat.bbc" ] || fail "synth wrote nothing"

"$RZ" bench --corpus "$T/tfloat.bbc" --synthetic zeros --settings 101,404,505 --preconditioners none,shuffle \
  --threads 1,2 --min-samples 2 --target-ms 1 --progress \
  --json "$T/out.json" --csv "$T/out.csv" --markdown "$T/out.md" \
  --root-commit abc123 --context-json '{"suite":"cli-test","run_id":7}' > "$T/table.txt" 2> "$T/err.txt"
grep -q '^progress ' "$T/err.txt" || fail "no progress lines"
grep -q 'tfloat' "$T/table.txt" || fail "no console table"
head -1 "$T/out.csv" | grep -q '^dataset,codec,setting' || fail "csv header"
# 2 datasets x (memcpy + 3 settings x 2 preconditioners x 2 threads)
[ "$(($(wc -l < "$T/out.csv") - 1))" -eq 26 ] || fail "expected 26 csv rows, got $(($(wc -l < "$T/out.csv") - 1))"
grep -q '^| dataset' "$T/out.md" || fail "markdown header"

if [ -x "$PY" ] && "$PY" -c 'import jsonschema' 2>/dev/null; then
  "$PY" - "$SCHEMA" "$T/out.json" <<'PYEOF'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(doc)
assert doc["context"] == {"suite": "cli-test", "run_id": 7}, doc["context"]
assert doc["root_commit"] == "abc123"
assert all(r["roundtrip_ok"] and r["error"] is None for r in doc["results"])
assert all(len(r["compress_mbps"]["samples"]) == 2 for r in doc["results"])
names = {d["name"] for d in doc["datasets"]}
assert names == {"tfloat", "zeros"}, names
print("schema ok:", len(doc["results"]), "results")
PYEOF
else
  echo "note: .venv with jsonschema not found, schema validation skipped" >&2
fi

# RAC modes and a dictionary on small data (per-entry calls are slow by design: one stream per entry)
"$RZ" bench --synthetic tsmall --settings 505 --modes rac-sequential,rac-random --dictionary-sizes 0,2048 \
  --min-samples 2 --target-ms 1 --no-memcpy --csv "$T/rac.csv" --quiet
[ "$(($(wc -l < "$T/rac.csv") - 1))" -eq 4 ] || fail "expected 4 rac rows"
grep -q ',rac-random,' "$T/rac.csv" || fail "rac-random row"

# stdout outputs
"$RZ" bench --synthetic zeros --settings 404 --min-samples 1 --target-ms 0 --json - --quiet | grep -q '"schema_version"' \
  || fail "--json -"

# exit code 2: usage errors and bad input
expect_rc() { local want="$1"; shift; set +e; "$@" > /dev/null 2> "$T/rc_err.txt"; local rc=$?; set -e
  [ "$rc" -eq "$want" ] || fail "expected exit $want, got $rc: $* ($(cat "$T/rc_err.txt"))"; }
expect_rc 2 "$RZ" bench --settings 111 --synthetic zeros
expect_rc 2 "$RZ" bench --settings 601 --synthetic zeros
expect_rc 2 "$RZ" bench --synthetic nope
expect_rc 2 "$RZ" bench --modes sideways --synthetic zeros
expect_rc 2 "$RZ" bench --threads 0 --synthetic zeros
expect_rc 2 "$RZ" bench --context-json '[1]' --synthetic zeros
expect_rc 2 "$RZ" bench --bogus
# headroom: settings without a bare library call, no data, a missing layer, --count outside valgrind
expect_rc 2 "$RZ" headroom --settings 301 --synthetic zeros
expect_rc 2 "$RZ" headroom --settings 500 --synthetic zeros
expect_rc 2 "$RZ" headroom --settings 101
expect_rc 2 "$RZ" headroom --layer "$T/missing.so" --synthetic zeros --settings 101
expect_rc 2 "$RZ" headroom --count --synthetic zeros --settings 101
expect_rc 2 "$RZ" nonsense
if "$RZ" version | grep -q '"rootcompat"'; then
  expect_rc 2 "$RZ" bench --settings 301 --synthetic zeros
fi
printf 'BBCORPUS\x01\x00\x00\x00\xff\x00\x00\x00\x00\x00\x00\x00{' > "$T/bad.bbc"
expect_rc 2 "$RZ" bench --corpus "$T/bad.bbc"
expect_rc 2 "$RZ" verify --corpus "$T/bad.bbc"
head -c 1000 "$T/tfloat.bbc" > "$T/trunc.bbc"
expect_rc 2 "$RZ" bench --corpus "$T/trunc.bbc"
expect_rc 2 "$RZ" bench --corpus "$T/missing.bbc"
grep -q 'bad corpus' "$T/rc_err.txt" || fail "missing-file message"

python3 - "$T/empty.bbc" <<'PYEOF'
import json, struct, sys
h = json.dumps({"format": "basketbench-corpus", "format_version": 1, "name": "empty",
                "payload_len": 0, "files": [], "baskets": []}).encode()
open(sys.argv[1], "wb").write(b"BBCORPUS" + struct.pack("<IQ", 1, len(h)) + h)
PYEOF
expect_rc 2 "$RZ" bench --corpus "$T/empty.bbc"
grep -q 'no basket data' "$T/rc_err.txt" || fail "empty corpus message"

# --count outside valgrind: refused with the command that runs it (issue 23)
expect_rc 2 "$RZ" bench --synthetic tfloat --count
grep -q 'must run under valgrind --tool=callgrind' "$T/rc_err.txt" || fail "--count message"

# verify on a corpus without ROOT-compressed baskets: nothing to decode, exit 0
"$RZ" verify --corpus "$T/tfloat.bbc" --json "$T/verify.json" > /dev/null
grep -q '"baskets": 0' "$T/verify.json" || fail "verify json"
# digest: sizes and a hash of every compressed byte, deterministic, no timing; bad input exits 2
"$RZ" digest --corpus "$T/tfloat.bbc" --settings 101,404 --preconditioners none,shuffle --json "$T/d1.json"
"$RZ" digest --corpus "$T/tfloat.bbc" --settings 101,404 --preconditioners none,shuffle --json "$T/d2.json"
cmp -s "$T/d1.json" "$T/d2.json" || fail "digest is not deterministic"
[ "$(grep -c '"roundtrip_ok": true' "$T/d1.json")" -eq 4 ] || fail "digest: 4 round trips expected"
grep -q '"xxh64": "[0-9a-f]\{16\}"' "$T/d1.json" || fail "digest: no xxh64"
set +e; "$RZ" digest --corpus "$T/tfloat.bbc" --settings 1000 > /dev/null 2>&1; rc=$?; set -e
[ "$rc" -eq 2 ] || fail "digest with a bad setting: exit $rc, expected 2"
echo "cli ok"
