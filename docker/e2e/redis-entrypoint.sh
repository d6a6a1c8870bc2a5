#!/bin/sh
# As the official image: own /data, drop to the redis user, and listen for the compose
# network (protected mode off) unless a config file is given.
set -eu
if [ "${1:-}" = redis-server ]; then
  case "${2:-}" in
    *.conf) ;;
    *) shift; set -- redis-server --bind '* -::*' --protected-mode no "$@" ;;
  esac
  if [ "$(id -u)" = 0 ]; then
    chown -R redis:redis /data
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
exec "$@"
