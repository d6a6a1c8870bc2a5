#!/usr/bin/env bash
# make test-aarch64: cross-build rzbench and the rootcompat layer for aarch64, run the harness's
# ctest suite under qemu-user, compare every byte the aarch64 build writes on the real ROOT files
# with the x86_64 build's, and check that a deliberately wrong build is caught.
set -euo pipefail
HARNESS="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(dirname "$HARNESS")"
PY="$ROOT/.venv/bin/python"
JOBS="${HARNESS_JOBS:-2}"
CACHE="${BASKETBENCH_CACHE_DIR:-$HOME/.cache/basketbench}"
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" >/dev/null || { echo "test-aarch64 needs $tool: run make system-deps" >&2; exit 1; }
done
[ -e /usr/lib/aarch64-linux-gnu/libzstd.so ] || { echo "test-aarch64 needs the :arm64 codec libraries: run make system-deps" >&2; exit 1; }
# Objects are cached outside the clone (ccache), so a fresh clone's cross build takes seconds.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_DIR="$CACHE/ccache" CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
build() { # build DIR FAULT TARGET...
  cmake -S "$HARNESS" -B "$1" -DCMAKE_TOOLCHAIN_FILE="$HARNESS/cmake/aarch64-linux-gnu.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DRZBENCH_FAULT="$2" "${launcher[@]}" > /dev/null
  cmake --build "$1" -j"$JOBS" --target "${@:3}"
}
start=$SECONDS
build "$HARNESS/build-aarch64" "" rzbench rzbench_tests
echo "== aarch64 cross build: $((SECONDS - start)) s"
# The GoogleTest suite under emulation (CMAKE_CROSSCOMPILING_EMULATOR). Left to the native
# ctest: cli, cli_options and backend_switch (they run the binary or host tools directly) and
# the timing engine's every-mode x every-thread-count round trip (minutes under qemu; the codec
# bytes it checks are compared below). The option parser's GoogleTests run here.
(cd "$HARNESS/build-aarch64" && ctest --output-on-failure -j"$JOBS" \
  -E '^(cli|cli_options|backend_switch|Experiment\.EveryModePreconditionerAndThreadCountRoundTrips)$')
echo "== aarch64 ctest: $((SECONDS - start)) s"
WORK="$HARNESS/build-aarch64/compare"
"$PY" "$HARNESS/scripts/compare_arches.py" --native "$HARNESS/build/rzbench" \
  --cross "$HARNESS/build-aarch64/rzbench" --work "$WORK"
echo "== byte-exact comparison: $((SECONDS - start)) s"
for fault in header-byte-order checksum-byte-order; do
  build "$HARNESS/build-aarch64-fault-$fault" "$fault" rzbench
  "$PY" "$HARNESS/scripts/compare_arches.py" --native "$HARNESS/build/rzbench" \
    --cross "$HARNESS/build-aarch64-fault-$fault/rzbench" --work "$WORK" --expect-mismatch
done
echo "== test-aarch64 passed in $((SECONDS - start)) s"
