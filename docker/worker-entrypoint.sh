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
exec "$@"
