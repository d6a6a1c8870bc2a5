#!/bin/sh
# API container start: migrate the database (retrying while it comes up), register the
# shared worker token from the environment, then run the command (basketbench serve ...).
set -eu

attempt=1
until basketbench db upgrade; do
  if [ "$attempt" -ge 30 ]; then
    echo "basketbench-api: database migration failed after $attempt attempts" >&2
    exit 1
  fi
  echo "basketbench-api: database not ready (attempt $attempt), retrying in 2 s" >&2
  attempt=$((attempt + 1))
  sleep 2
done

if [ -n "${BASKETBENCH_WORKER_TOKEN:-}" ]; then
  basketbench-bootstrap-token
fi

exec "$@"
