#!/usr/bin/env bash
# The option parser seen from the command line: each subcommand runs with the options it accepts
# and refuses the others; a usage error exits 2 with "rzbench: <reason>" and the usage on stderr.
set -euo pipefail
RZ="$1"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# usage_error REASON ARGS...: exit 2, the reason on stderr's first line, then the usage.
usage_error() {
  local reason="$1"; shift
  set +e; "$RZ" "$@" > "$T/out" 2> "$T/err"; local rc=$?; set -e
  [ "$rc" -eq 2 ] || fail "expected exit 2, got $rc: $*"
  [ "$(head -1 "$T/err")" = "rzbench: $reason" ] || fail "$*: stderr starts with '$(head -1 "$T/err")', expected 'rzbench: $reason'"
  sed -n 2p "$T/err" | grep -q '^usage:$' || fail "$*: no usage after the reason"
  [ ! -s "$T/out" ] || fail "$*: wrote to stdout"
}

"$RZ" synth tfloat -o "$T/t.bbc"
"$RZ" synth --output "$T/z.bbc" zeros
[ -s "$T/t.bbc" ] && [ -s "$T/z.bbc" ] || fail "synth"

# accepted options
"$RZ" verify --corpus "$T/t.bbc" --json "$T/v.json" > /dev/null
"$RZ" verify --corpus "$T/t.bbc" | grep -q '"baskets"' || fail "verify --json defaults to stdout"
"$RZ" sizes --corpus "$T/t.bbc" --synthetic zeros --settings 101 --preconditioners none,shuffle --progress \
  --json "$T/s.json" 2> "$T/progress"
grep -q '^progress ' "$T/progress" || fail "sizes --progress"
grep -q '"dataset": "zeros"' "$T/s.json" || fail "sizes json"
"$RZ" sizes --synthetic zeros | grep -q '"setting": 505' || fail "sizes default settings 101,505 to stdout"
"$RZ" sizes --synthetic zeros | grep -q '"setting": 404' && fail "sizes measured 404 by default"
"$RZ" digest --corpus "$T/t.bbc" | grep -c '"roundtrip_ok": true' | grep -qx 3 || fail "digest default settings 101,404,505"
"$RZ" digest --corpus "$T/t.bbc" --settings 505 --preconditioners bitshuffle --json "$T/d.json"
grep -q '"preconditioner": "bitshuffle"' "$T/d.json" || fail "digest json"
"$RZ" bench --synthetic zeros --settings 101 --preconditioners none --dictionary-sizes 0 --basket-sizes 0 \
  --modes basket --threads 1 --min-samples 1 --target-ms 0 --no-memcpy --json "$T/b.json" --csv "$T/b.csv" \
  --markdown "$T/b.md" --quiet --root-commit abc --context-json '{"k":1}' > "$T/out"
[ ! -s "$T/out" ] || fail "bench --quiet printed a table"
[ "$(($(wc -l < "$T/b.csv") - 1))" -eq 1 ] || fail "bench: one csv row expected"

# usage errors, per subcommand
usage_error "unknown command 'nonsense'" nonsense
usage_error "unknown option '--bogus'" bench --bogus
usage_error "--settings needs a value" bench --settings
usage_error "empty list ','" bench --settings ,
usage_error "invalid thread count '0' (expected an integer in 1..256)" bench --threads 0
usage_error "invalid --target-ms 'x'" bench --target-ms x
usage_error "--context-json must be a JSON object" bench --context-json '[1]'
usage_error "unknown option '-o'" bench -o x
usage_error "verify needs --corpus FILE.bbc" verify
usage_error "unknown option '--settings'" verify --corpus "$T/t.bbc" --settings 101
usage_error "sizes needs --corpus FILE.bbc or --synthetic NAME" sizes
usage_error "unknown option '--csv'" sizes --synthetic zeros --csv x
usage_error "unknown option '--quiet'" sizes --synthetic zeros --quiet
usage_error "unknown synthetic dataset 'nope'" sizes --synthetic nope
usage_error "digest needs --corpus FILE.bbc" digest
usage_error "unknown option '--synthetic'" digest --synthetic zeros
usage_error "unknown option '--progress'" digest --corpus "$T/t.bbc" --progress
usage_error "invalid setting '1000' (expected an integer in 0..599)" digest --corpus "$T/t.bbc" --settings 1000
usage_error "unknown preconditioner 'foo'" digest --corpus "$T/t.bbc" --preconditioners foo
usage_error "synth needs NAME and -o FILE.bbc" synth tfloat
usage_error "unexpected argument 'zeros'" synth tfloat zeros -o "$T/x.bbc"
usage_error "unexpected argument '--json'" synth tfloat --json x
usage_error "unknown synthetic dataset 'nope'" synth nope -o "$T/x.bbc"
usage_error "-o needs a value" synth tfloat -o
[ ! -e "$T/x.bbc" ] || fail "a refused synth wrote its output"

# no subcommand: the usage alone, exit 2; help: the usage on stdout, exit 0
set +e; "$RZ" > /dev/null 2> "$T/err"; rc=$?; set -e
[ "$rc" -eq 2 ] && [ "$(head -1 "$T/err")" = "usage:" ] || fail "no subcommand: exit $rc"
"$RZ" help | head -1 | grep -qx 'usage:' || fail "help"
echo "cli options ok"

# ab: two layers in one process
usage_error "ab needs --a and --b (host or the path of a layer shared object)" ab --a host --synthetic zeros
usage_error "ab needs --corpus FILE.bbc or --synthetic NAME" ab --a host --b host
usage_error "ab: setting 100 stores the data uncompressed: nothing to compare" ab --a host --b host --synthetic zeros --settings 100
set +e; "$RZ" ab --a host --b "$T/missing.so" --synthetic zeros > "$T/out" 2> "$T/err"; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "^rzbench: cannot load layer $T/missing.so" "$T/err" || fail "ab with a missing layer: exit $rc, $(cat "$T/err")"
"$RZ" ab --a host --b host --synthetic tsmall --settings 101 --pairs 2 --target-ms 0.1 --json "$T/ab.json"
grep -q '"schema": "rzbench-ab-v1"' "$T/ab.json" || fail "ab json"
