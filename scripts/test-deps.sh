#!/usr/bin/env bash
# Installs (if missing) and starts, idempotently, what the tests need: a
# private PostgreSQL 15 on 127.0.0.1, trusted, in its own data directory
# (its client tools psql and pgbench come with it), a private MariaDB
# 10.11 on 127.0.0.1 with a user and database for the tests, and a Python
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
MYPORT=${SEQD_TEST_MARIADB_PORT:-53306}
MYDATA=${SEQD_TEST_MARIADB_DATA:-/var/tmp/seqd-test-mariadb}
MYSOCK=$MYDATA/mariadb.sock
if ! command -v mariadbd >/dev/null && [ ! -x /usr/sbin/mariadbd ]; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server >&2
fi
MYUSER=$(id -un)
[ "$(id -u)" = 0 ] && MYUSER=mysql
if ! mariadb-admin --socket="$MYSOCK" -u root ping >/dev/null 2>&1; then
  if [ ! -d "$MYDATA/mysql" ]; then
    mkdir -p "$MYDATA"
    [ "$(id -u)" = 0 ] && chown mysql "$MYDATA"
    mariadb-install-db --no-defaults --user="$MYUSER" --datadir="$MYDATA" \
      --auth-root-authentication-method=socket --skip-test-db >"$MYDATA/install.log" 2>&1
  fi
  setsid /usr/sbin/mariadbd --no-defaults --user="$MYUSER" --datadir="$MYDATA" \
    --socket="$MYSOCK" --port="$MYPORT" --bind-address=127.0.0.1 \
    --pid-file="$MYDATA/mariadbd.pid" --log-error="$MYDATA/server.log" \
    --max-connections=500 --skip-name-resolve </dev/null >/dev/null 2>&1 &
  for _ in $(seq 1 120); do
    mariadb-admin --socket="$MYSOCK" -u root ping >/dev/null 2>&1 && break
    sleep 0.5
  done
  mariadb-admin --socket="$MYSOCK" -u root ping >&2
fi
mariadb --socket="$MYSOCK" -u root -e "
  CREATE DATABASE IF NOT EXISTS seqd_test;
  CREATE USER IF NOT EXISTS 'seqd'@'127.0.0.1' IDENTIFIED BY 'seqd';
  GRANT ALL ON *.* TO 'seqd'@'127.0.0.1';" >&2

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
echo "export SEQD_TEST_MARIADB_DSN='seqd:seqd@tcp(127.0.0.1:$MYPORT)/seqd_test'"
echo "export SEQD_TEST_PYTHON='$VENV/bin/python'"
