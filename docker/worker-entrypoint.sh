#!/bin/sh
# Worker container start: `basketbench worker` takes its hardware tag from BASKETBENCH_TAG
# when the command line does not name one (so one image serves every tag).
set -eu
if [ "$#" -ge 2 ] && [ "$1" = "basketbench" ] && [ "$2" = "worker" ] && [ -n "${BASKETBENCH_TAG:-}" ]; then
  case " $* " in
    *" --tag "*|*" --tag="*) ;;
    *) set -- "$@" --tag "$BASKETBENCH_TAG" ;;
  esac
fi
# A ROOT repository mounted from the host (BASKETBENCH_ROOT_REPO=/path) belongs to another
# user: git refuses to clone it ("dubious ownership") unless that one path is trusted. The
# trust goes into a git config of the worker's own (its home, /app, is read-only).
repo="${BASKETBENCH_ROOT_REPO:-}"
if [ -n "$repo" ] && [ -d "$repo" ]; then
  export GIT_CONFIG_GLOBAL="${GIT_CONFIG_GLOBAL:-${BASKETBENCH_WORKER_DIR:-/var/lib/basketbench}/gitconfig}"
  for path in "$repo" "$repo/.git"; do
    git config --global --get-all safe.directory | grep -qxF "$path" \
      || git config --global --add safe.directory "$path"
  done
fi
exec "$@"
