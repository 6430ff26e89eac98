#!/usr/bin/env bash
# Installs (if missing) and starts, idempotently, what the tests need: a
# private PostgreSQL 15 on 127.0.0.1, trusted, in its own data directory
# (its client tools psql and pgbench come with it), and a Python
# virtualenv with psycopg. Prints shell exports that tell the tests where
# they are; scripts/test evaluates them.
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
VENV=${SEQD_TEST_VENV:-/var/tmp/seqd-test-venv}
PSYCOPG=3.2.3
if ! "$VENV/bin/python" -c "import psycopg; assert psycopg.__version__ == '$PSYCOPG'" 2>/dev/null; then
  if ! python3 -c "import venv, ensurepip" 2>/dev/null; then
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2
  fi
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install -q "psycopg[binary]==$PSYCOPG" >&2
fi

echo "export SEQD_TEST_PG_DSN='postgres://postgres@127.0.0.1:$PGPORT/postgres?sslmode=disable'"
echo "export SEQD_TEST_PYTHON='$VENV/bin/python'"
