#!/usr/bin/env bash
# Start PostgreSQL and Redis if they are not answering (tests need real ones).
set -euo pipefail
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
  for _ in $(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 30); do redis-cli ping >/dev/null 2>&1 && break; sleep 1; done
fi
pg_isready -h 127.0.0.1 -p 5432
# The tests connect as postgres@127.0.0.1 without a password (BASKETBENCH_TEST_PG_ADMIN
# overrides). A fresh Debian cluster asks for one: on CI (a throwaway machine) allow local
# TCP connections with trust; elsewhere say what to do instead of editing pg_hba.conf.
admin="${BASKETBENCH_TEST_PG_ADMIN:-postgresql://postgres@127.0.0.1:5432/postgres}"
if ! psql "$admin" -w -tAc 'select 1' >/dev/null 2>&1; then
  hba="$(ls /etc/postgresql/*/main/pg_hba.conf 2>/dev/null | head -1)"
  if [[ "${CI:-}" == "true" && -n "$hba" && -w "$hba" ]]; then
    echo "CI: trusting local TCP connections in $hba"
    sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main reload
    sleep 1
  fi
  psql "$admin" -w -tAc 'select 1' >/dev/null || {
    echo "cannot connect to $admin; set BASKETBENCH_TEST_PG_ADMIN to a superuser URL" \
         "(e.g. postgresql://postgres:PASSWORD@127.0.0.1:5432/postgres)" >&2
    exit 1
  }
fi
redis-cli -h 127.0.0.1 -p 6379 ping
