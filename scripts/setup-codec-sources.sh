#!/usr/bin/env bash
# Debian source packages of the codec libraries for the workers' pinned codec sets
# (workers/basketbench_workers/build/codecsource.py): deb-src lines for bullseye, bookworm and
# trixie, which carry zstd 1.4.8 / 1.5.4 / 1.5.7, lz4 1.9.3 / 1.9.4 / 1.10.0 and
# xz 5.2.5 / 5.4.1 / 5.8.1. Idempotent: apt-get update runs only when apt does not know
# those source packages yet.
set -euo pipefail
FILE=/etc/apt/sources.list.d/basketbench-codec-sources.sources
read -r -d '' WANTED <<'SOURCES' || true
# basketbench: Debian source packages of the codec libraries (zstd, lz4, xz-utils) at the
# versions ROOT releases carry (bullseye: zstd 1.4.8 / lz4 1.9.3 / xz 5.2.5; bookworm:
# 1.5.4 / 1.9.4 / 5.4.1; trixie: 1.5.7 / 1.10.0 / 5.8.1). Written by scripts/setup-codec-sources.sh.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bullseye bookworm trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES

if ! command -v apt-get >/dev/null; then
  echo "setup-codec-sources: no apt-get here; pinned codec sets need Debian's source packages" >&2
  exit 0  # the worker then fails such runs with that reason; host codecs still work
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "setup-codec-sources: needs root to write $FILE; run: sudo bash $0" >&2; exit 1
  fi
fi
if [ ! -f "$FILE" ] || [ "$(cat "$FILE")" != "$WANTED" ]; then
  printf '%s\n' "$WANTED" | $SUDO tee "$FILE" >/dev/null
fi
known() { apt-cache showsrc "$1" 2>/dev/null | grep -q "^Version: $2"; }
if ! known libzstd 1.4.8 || ! known libzstd 1.5.7 || ! known xz-utils 5.8.1; then
  $SUDO apt-get update -qq
fi
