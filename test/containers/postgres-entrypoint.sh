#!/bin/bash
# The stand-in for postgres:15-bookworm's docker-entrypoint.sh, for what compose.yaml uses of it:
# POSTGRES_USER, POSTGRES_DB, POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE, PGDATA; a first start
# initialises the cluster with scram-sha-256 for connections from the network; runs as root only to
# own PGDATA, then as postgres (uid 999), as the official image does.
set -euo pipefail
if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi
if [ "$1" != postgres ]; then exec "$@"; fi
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$BASH_SOURCE" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then POSTGRES_PASSWORD=$(< "$POSTGRES_PASSWORD_FILE"); fi
  : "${POSTGRES_PASSWORD:?the stand-in, as the official image, needs POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE}"
  user=${POSTGRES_USER:-postgres}
  initdb --username="$user" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") -D "$PGDATA" >/dev/null
  printf 'host all all all scram-sha-256\n' >> "$PGDATA/pg_hba.conf"
  printf "listen_addresses = '*'\n" >> "$PGDATA/postgresql.conf"
  db=${POSTGRES_DB:-$user}
  if [ "$db" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    psql -v ON_ERROR_STOP=1 --username "$user" --dbname postgres -c "CREATE DATABASE \"$db\"" >/dev/null
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo 'PostgreSQL init process complete; ready for start up.'
fi
exec "$@"
