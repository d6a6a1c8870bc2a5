#!/usr/bin/env bash
# Install the Debian packages basketbench builds and tests with, if any is missing.
# On macOS, use brew; elsewhere without root, print the exact command and stop.
set -euo pipefail
DEB_PKGS=(build-essential cmake pkg-config zlib1g-dev liblzma-dev liblz4-dev libzstd-dev
          libxxhash-dev nlohmann-json3-dev libgtest-dev zstd lz4 git python3-venv
          valgrind  # callgrind counts (basketbench run --instructions) and its client-request headers
          bubblewrap util-linux)  # the sandbox of commit code (docs/security.md): bwrap, prlimit, setpriv
# Browser tests, static compose validation and the real PostgreSQL / Redis of the
# integration tests only matter for `make test` (the demo runs on SQLite, without a broker).
if [[ "${BASKETBENCH_TEST_DEPS:-1}" == "1" ]]; then
  DEB_PKGS+=(chromium docker-compose postgresql redis-server)
  DEB_PKGS+=(libbenchmark-dev)  # a real Google Benchmark binary for the gbench ingest tests
  # make test-aarch64: the cross compiler, qemu-user and the arm64 codec libraries (multiarch).
  DEB_PKGS+=(g++-aarch64-linux-gnu qemu-user ccache)
  ARM64_PKGS=(zlib1g-dev liblzma-dev liblz4-dev libzstd-dev libxxhash-dev libgtest-dev)
  DEB_PKGS+=("${ARM64_PKGS[@]/%/:arm64}")
fi
BREW_PKGS=(cmake pkg-config zlib xz lz4 zstd xxhash nlohmann-json googletest)

if [[ "$(uname)" == "Darwin" ]]; then
  command -v brew >/dev/null || { echo "install Homebrew, then: brew install ${BREW_PKGS[*]}"; exit 1; }
  brew list ${BREW_PKGS[*]} >/dev/null 2>&1 || brew install "${BREW_PKGS[@]}"
  exit 0
fi
missing=()
for p in "${DEB_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
echo "installing system packages: ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then SUDO=""; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo"; else
  echo "missing packages; run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2; exit 1
fi
if [[ " ${missing[*]}" == *":arm64"* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
