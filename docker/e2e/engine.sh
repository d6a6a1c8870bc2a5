#!/usr/bin/env bash
# Docker engine and base images for `make compose-e2e`, on a machine that reaches Debian's
# mirror (and PyPI, npm) but no image registry:
#   1. Debian's docker.io (dockerd 20.10) and docker-compose (1.29), installed with apt-get;
#   2. a dockerd of our own (data root, socket, pid file; overlay2, or vfs where overlayfs
#      cannot be mounted, or BASKETBENCH_DOCKER_STORAGE_DRIVER) unless one answers there;
#   3. a Debian bookworm base image made with debootstrap + docker import, cached as a
#      tarball, and the python/node images the Dockerfiles take as build arguments.
# Prints nothing on stdout but `export DOCKER_HOST=...` (for eval).
set -euo pipefail

CACHE="${BASKETBENCH_DOCKER_CACHE:-/var/cache/basketbench}"
RUN_DIR="${BASKETBENCH_DOCKER_RUN:-/run/basketbench}"
SOCKET="$RUN_DIR/docker.sock"
MIRROR="${BASKETBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
BASE_IMAGE="basketbench-local/debian:bookworm"
HERE="$(cd "$(dirname "$0")" && pwd)"
DOCKER=/usr/bin/docker  # Debian's client, matching its daemon (not another docker on PATH)
export DOCKER_HOST="unix://$SOCKET"

log() { echo "compose-e2e: $*" >&2; }

need_packages=()
for cmd in /usr/sbin/dockerd:docker.io /usr/bin/docker-compose:docker-compose \
           /usr/sbin/debootstrap:debootstrap; do
  [[ -x "${cmd%%:*}" ]] || need_packages+=("${cmd##*:}")
done
if ((${#need_packages[@]})); then
  log "installing ${need_packages[*]}"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_packages[@]}" >&2
fi

# Storage driver: overlay2 where this kernel mounts overlayfs (every build step of vfs copies
# the whole image: 30-90 s per step on a loaded 2-core machine), else vfs. One data root each.
overlay_works() {
  local t
  t="$(mktemp -d)" || return 1
  mkdir -p "$t"/{l,u,w,m}
  if mount -t overlay overlay -o "lowerdir=$t/l,upperdir=$t/u,workdir=$t/w" "$t/m" 2>/dev/null; then
    umount "$t/m"; rm -rf "$t"; return 0
  fi
  rm -rf "$t"; return 1
}
DRIVER="${BASKETBENCH_DOCKER_STORAGE_DRIVER:-}"
if [[ -z "$DRIVER" ]]; then
  if overlay_works; then DRIVER=overlay2; else DRIVER=vfs; fi
fi
mkdir -p "$CACHE/dockerd" "$CACHE/base" "$RUN_DIR"
if ! "$DOCKER" version >/dev/null 2>&1; then
  log "starting dockerd (data root $CACHE/dockerd/$DRIVER, socket $SOCKET, $DRIVER)"
  setsid nohup /usr/sbin/dockerd \
    --data-root "$CACHE/dockerd/$DRIVER" --exec-root "$RUN_DIR/exec" \
    -H "$DOCKER_HOST" --pidfile "$RUN_DIR/docker.pid" --storage-driver "$DRIVER" \
    >>"$CACHE/dockerd/dockerd.log" 2>&1 </dev/null &
  for _ in $(seq 120); do
    "$DOCKER" version >/dev/null 2>&1 && break
    sleep 1
  done
  "$DOCKER" version >/dev/null 2>&1 || { tail -20 "$CACHE/dockerd/dockerd.log" >&2; log "dockerd did not answer"; exit 1; }
fi

if ! "$DOCKER" image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  tarball="$CACHE/base/debian-bookworm-minbase.tar"
  if [[ ! -s "$tarball" ]]; then
    log "debootstrap bookworm (once; cached as $tarball)"
    rootfs="$CACHE/base/rootfs.tmp"
    rm -rf "$rootfs"
    debootstrap --variant=minbase bookworm "$rootfs" "$MIRROR" >"$CACHE/base/debootstrap.log" 2>&1 \
      || { tail -20 "$CACHE/base/debootstrap.log" >&2; exit 1; }
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" -cf "$tarball.tmp" .
    mv "$tarball.tmp" "$tarball"
    rm -rf "$rootfs"
  fi
  log "importing $BASE_IMAGE"
  "$DOCKER" import --change 'CMD ["bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "$tarball" "$BASE_IMAGE" >/dev/null
fi

# Stand-ins for python:3.11-slim-bookworm and node:20-bookworm-slim (same commands on PATH).
# Always built: the layer cache makes an unchanged one a matter of seconds.
# Their context: this host's extra CA certificates (an HTTPS-intercepting proxy's, if any).
context="$CACHE/base/context"
rm -rf "$context" && mkdir -p "$context/extra-ca"
find /usr/local/share/ca-certificates -maxdepth 1 -name '*.crt' -exec cp {} "$context/extra-ca/" \; 2>/dev/null || true
base="$BASE_IMAGE"
for name in python node; do
  image="basketbench-local/$name:bookworm"
  log "building $image"
  "$DOCKER" build -q --network host --build-arg "BASE_IMAGE=$base" \
    -t "$image" -f "$HERE/$name.Dockerfile" "$context" >/dev/null
  base="$image"
done
echo "export DOCKER_HOST=$DOCKER_HOST"
