#!/usr/bin/env bash
# The `root` backend switch: install rootcompat's headers + static library into a prefix laid out
# like the workers' ROOT build (include/RZip.h, include/Compression.h, lib/libRootZip.a), build the
# harness with -DRZBENCH_BACKEND=root -DROOT_ZIP_PREFIX=<prefix>, and run it. A Debug build: the
# test is about configuring and linking, and -O0 compiles in half the time.
set -euo pipefail
SRC="$1"
LIB="$2"
CMAKE="${3:-cmake}"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/prefix/include" "$T/prefix/lib"
cp "$SRC/rootcompat/include/RZip.h" "$SRC/rootcompat/include/Compression.h" "$T/prefix/include/"
cp "$LIB" "$T/prefix/lib/libRootZip.a"
"$CMAKE" -S "$SRC" -B "$T/build" -DCMAKE_BUILD_TYPE=Debug -DRZBENCH_TESTS=OFF \
  -DRZBENCH_BACKEND=root -DROOT_ZIP_PREFIX="$T/prefix" > "$T/configure.log"
"$CMAKE" --build "$T/build" -j2 --target rzbench > "$T/build.log" 2>&1 || { cat "$T/build.log"; exit 1; }
RZ="$T/build/rzbench"
"$RZ" version | grep -q '"backend": "root"' || { echo "FAIL: backend not root"; exit 1; }
"$RZ" bench --synthetic event --settings 101,404,505 --min-samples 1 --target-ms 0 --root-commit deadbeef \
  --json "$T/out.json" --quiet
grep -q '"backend": "root"' "$T/out.json" || { echo "FAIL: document backend"; exit 1; }
grep -q '"root_commit": "deadbeef"' "$T/out.json" || { echo "FAIL: root_commit"; exit 1; }
# The harness must link the prefix's library, not its own rootcompat sources.
if grep -q 'rootcompat/src' "$T/build/CMakeFiles/rzcore.dir/link.txt" 2>/dev/null; then
  echo "FAIL: root build compiled rootcompat into the harness"; exit 1
fi
grep -q "$T/prefix/lib/libRootZip.a" "$T/build/CMakeFiles/rzbench.dir/link.txt" || { echo "FAIL: not linked against the prefix"; exit 1; }
echo "backend switch ok"
