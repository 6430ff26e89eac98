#!/usr/bin/env bash
# Installs (if missing) and starts, idempotently, what the tests need: a
# private PostgreSQL 15 on 127.0.0.1, trusted, in its own data directory.
# Prints the connection string.
set -euo pipefail
PGBIN=/usr/lib/postgresql/15/bin
PGPORT=${SEQD_TEST_PG_PORT:-55432}
PGDATA=${SEQD_TEST_PG_DATA:-/var/tmp/seqd-test-pg15}

if [ ! -x "$PGBIN/postgres" ] || ! command -v psql >/dev/null; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 postgresql-client-15 >&2
fi

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if ! "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT"; then
  if [ ! -f "$PGDATA/PG_VERSION" ]; then
    mkdir -p "$PGDATA"
    [ "$(id -u)" = 0 ] && chown postgres "$PGDATA"
    as_pg "$PGBIN/initdb" -D "$PGDATA" -U postgres -A trust >/dev/null
  fi
  as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w -t 60 \
    -o "-p $PGPORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=200" start >&2
fi
echo "postgres://postgres@127.0.0.1:$PGPORT/postgres?sslmode=disable"
