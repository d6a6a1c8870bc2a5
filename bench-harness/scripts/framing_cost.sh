#!/usr/bin/env bash
# Instructions per pass (callgrind) through ROOT's framing vs the bare library, for the settings
# compared with the CLIs. Usage: framing_cost.sh FILE.bin [BUILD_DIR]  (FILE: concatenated baskets)
set -euo pipefail
FILE="$1"
HERE="$(cd "$(dirname "$0")" && pwd)"
BUILD="${2:-$HERE/../build}"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
# liblz4's *_fastReset entry points (what lz4 -b uses) are only in the static library.
g++ -O2 -std=c++17 -I"$HERE/../rootcompat/include" "$HERE/framing_cost.cpp" "$BUILD/libRootZip.a" \
  /usr/lib/x86_64-linux-gnu/liblz4.a -lzstd -llzma -lxxhash -lz -o "$T/framing_cost"
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$T/framing_cost" "$FILE" "$@" 2>&1 \
         | sed -n 's/.*Collected : //p'; }
echo "| setting | direction | RZip.h instr/pass | bare library instr/pass | RZip.h / bare |"
echo "|---|---|---:|---:|---:|"
for s in 401 404 501 503 505; do
  for d in c d; do
    r=$(( ($(ir root $d $s 2) - $(ir root $d $s 0)) / 2 ))
    b=$(( ($(ir bare $d $s 2) - $(ir bare $d $s 0)) / 2 ))
    python3 -c "print('| $s | ' + ('compress' if '$d' == 'c' else 'decompress') + ' | $r | $b | %.3f |' % ($r / $b))"
  done
done
