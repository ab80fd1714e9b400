#!/usr/bin/env bash
# A throwaway PostgreSQL for the tests: `start DIR PORT` initialises a cluster under DIR (as the postgres
# user), serves it on 127.0.0.1:PORT only, and prints the URL to use; `stop DIR` stops it (fast shutdown);
# `resume DIR PORT` starts it again.
set -euo pipefail
action=$1 dir=$2 port=${3:-55432}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# The postgres user may not enter the caller's folder; run from one it owns or can read.
mkdir -p "$dir"
[ "$(id -u)" = 0 ] && chown postgres "$dir"
cd "$dir"

case $action in
  start)
    as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >/dev/null
    as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300 -c fsync=on" start >/dev/null
    as_postgres "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres plantstore_test
    echo "postgres://postgres@127.0.0.1:$port/plantstore_test"
    ;;
  resume)
    as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300 -c fsync=on" start >/dev/null
    ;;
  stop)
    as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    ;;
esac
