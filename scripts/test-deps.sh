#!/usr/bin/env bash
# Installs (if missing) and starts, idempotently, what the tests need: a
# private PostgreSQL 15 on 127.0.0.1, trusted, in its own data directory
# (its client tools psql and pgbench come with it), a private MariaDB
# 10.11 on 127.0.0.1 with a user and database for the tests (its clients
# mariadb and mariadb-dump come with it), and a Python
# virtualenv with psycopg, and the drivers of the compatibility matrix
# (compat/): psycopg2, asyncpg, SQLAlchemy, PyMySQL,
# mysql-connector-python, pgcli, httpx, openapi-spec-validator and
# grpcio from PyPI (and for sdk/python pytest, psycopg-pool and
# setuptools), node-postgres, postgres.js, Sequelize, mysql2, mariadb and
# @grpc/grpc-js from npm (and for sdk/typescript typescript and
# prettier), pgjdbc and HikariCP from Maven Central (and for sdk/java
# JUnit and Hibernate ORM), tokio-postgres from crates.io and grpcurl
# from the Go module proxy, each cached under /var/tmp, and Redis 7
# (redis-server, seqbench's peer), and Chromium (the console's browser
# test). Prints shell exports that tell the
# tests where they are; scripts/test evaluates them.
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
  GRANT ALL ON *.* TO 'seqd'@'127.0.0.1' WITH GRANT OPTION;" >&2

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

# The Python stacks of the driver matrix, pinned.
PYDRIVERS="psycopg2-binary==2.9.13 asyncpg==0.32.0 SQLAlchemy==2.1.9 greenlet==3.5.6 PyMySQL==1.2.4 mysql-connector-python==26.10.0"
if ! "$VENV/bin/python" -c "
import psycopg2, asyncpg, sqlalchemy, greenlet, pymysql, mysql.connector
assert (psycopg2.__version__.split()[0], asyncpg.__version__, sqlalchemy.__version__, greenlet.__version__) == ('2.9.13', '0.32.0', '2.1.9', '3.5.6')
from importlib.metadata import version
assert (version('PyMySQL'), version('mysql-connector-python')) == ('1.2.4', '26.10.0')
" 2>/dev/null; then
  "$VENV/bin/pip" install -q $PYDRIVERS >&2
fi

# pgcli, whose completion metadata queries read the catalog (compat
# TestPgcliMetadata), pinned.
PGCLI=4.7.1
if ! "$VENV/bin/python" -c "from importlib.metadata import version; assert version('pgcli') == '$PGCLI'" 2>/dev/null; then
  "$VENV/bin/pip" install -q "pgcli==$PGCLI" >&2
fi

# httpx and openapi-spec-validator (with the JSON Schema validators it
# brings) drive and check the HTTP API (compat TestHTTPAPI), pinned.
HTTPX=0.28.1 OASV=0.9.0
if ! "$VENV/bin/python" -c "from importlib.metadata import version; assert (version('httpx'), version('openapi-spec-validator')) == ('$HTTPX', '$OASV')" 2>/dev/null; then
  "$VENV/bin/pip" install -q "httpx==$HTTPX" "openapi-spec-validator==$OASV" >&2
fi

# grpcio (and grpcio-tools, which compiles the service's .proto at test
# time, and grpcio-status, which reads a status's details) drive the
# gRPC service (compat TestGRPCAPI), pinned.
GRPCIO=1.85.1
if ! "$VENV/bin/python" -c "from importlib.metadata import version; assert {version(p) for p in ('grpcio', 'grpcio-tools', 'grpcio-status')} == {'$GRPCIO'}" 2>/dev/null; then
  "$VENV/bin/pip" install -q "grpcio==$GRPCIO" "grpcio-tools==$GRPCIO" "grpcio-status==$GRPCIO" "protobuf==7.36.2" >&2
fi

# grpcurl, the gRPC service's command-line client (it reads the service
# through reflection), built pinned from the Go module proxy.
GOTOOLS=${SEQD_TEST_GOBIN:-/var/tmp/seqd-test-gobin}
GRPCURL=v1.9.3
if [ "$(cat "$GOTOOLS/grpcurl.version" 2>/dev/null)" != "$GRPCURL" ] || [ ! -x "$GOTOOLS/grpcurl" ]; then
  mkdir -p "$GOTOOLS"
  (cd / && GOBIN=$GOTOOLS go install "github.com/fullstorydev/grpcurl/cmd/grpcurl@$GRPCURL" >&2)
  echo "$GRPCURL" >"$GOTOOLS/grpcurl.version"
fi

# Helm, whose lint and template check the chart (deploy/helm/seqd), built
# pinned from the Go module proxy.
HELM=v3.19.5
if [ "$(cat "$GOTOOLS/helm.version" 2>/dev/null)" != "$HELM" ] || [ ! -x "$GOTOOLS/helm" ]; then
  mkdir -p "$GOTOOLS"
  (cd / && GOBIN=$GOTOOLS go install "helm.sh/helm/v3/cmd/helm@$HELM" >&2)
  echo "$HELM" >"$GOTOOLS/helm.version"
fi

# mysqlclient (MySQLdb) builds against MariaDB's C connector; sysbench
# runs the MySQL driver matrix's Lua script. Both from Debian's packages.
if ! pkg-config --exists libmariadb 2>/dev/null || ! command -v sysbench >/dev/null; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libmariadb-dev pkg-config sysbench >&2
fi
MYSQLCLIENT=2.3.1
if ! "$VENV/bin/python" -c "import MySQLdb; assert MySQLdb.version_info[:3] == tuple(map(int, '$MYSQLCLIENT'.split('.')))" 2>/dev/null; then
  "$VENV/bin/pip" install -q "mysqlclient==$MYSQLCLIENT" >&2
fi

# The Python SDK's test stack (sdk/python), pinned.
# and its SDK checks: mypy (the package is typed) and ruff (lint, format).
PYSDK="pytest==8.3.4 psycopg-pool==3.2.4 setuptools==75.6.0 mypy==1.13.0 ruff==0.8.4"
if ! "$VENV/bin/python" -c "
import pytest, psycopg_pool, setuptools, mypy.version
assert (pytest.__version__, psycopg_pool.__version__, setuptools.__version__, mypy.version.__version__) == ('8.3.4', '3.2.4', '75.6.0', '1.13.0')
" 2>/dev/null || [ "$("$VENV/bin/ruff" --version 2>/dev/null)" != "ruff 0.8.4" ]; then
  "$VENV/bin/pip" install -q $PYSDK >&2
fi

# The Node.js, Java and Rust stacks: each installs from its lock or pom
# into a cache outside the repository, again only when that file changed.
here=$(cd "$(dirname "$0")/.." && pwd)
need_cmd() { # need_cmd COMMAND DEBIAN-PACKAGES...
  command -v "$1" >/dev/null && return
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${@:2}" >&2
}
stamp_ok() { # stamp_ok DIR FILES...: DIR was built from these very files
  [ -f "$1/.stamp" ] && [ "$(cat "${@:2}" | sha256sum)" = "$(cat "$1/.stamp")" ]
}
stamp() { cat "${@:2}" | sha256sum >"$1/.stamp"; }

NODEDIR=${SEQD_TEST_NODE_DIR:-/var/tmp/seqd-compat-node}
need_cmd curl curl # the HTTP API's shell client (compat TestHTTPAPI)
need_cmd node nodejs npm
need_cmd npm npm
if ! stamp_ok "$NODEDIR" "$here/compat/node/package.json" "$here/compat/node/package-lock.json"; then
  rm -rf "$NODEDIR" && mkdir -p "$NODEDIR"
  cp "$here/compat/node/package.json" "$here/compat/node/package-lock.json" "$NODEDIR/"
  (cd "$NODEDIR" && npm ci --no-audit --no-fund --loglevel=error >&2)
  stamp "$NODEDIR" "$here/compat/node/package.json" "$here/compat/node/package-lock.json"
fi

# The TypeScript SDK's toolchain and driver (typescript, prettier, pg).
TSDIR=${SEQD_TEST_TS_DIR:-/var/tmp/seqd-sdk-ts}
if ! stamp_ok "$TSDIR" "$here/sdk/typescript/package.json" "$here/sdk/typescript/package-lock.json"; then
  rm -rf "$TSDIR" && mkdir -p "$TSDIR"
  cp "$here/sdk/typescript/package.json" "$here/sdk/typescript/package-lock.json" "$TSDIR/"
  (cd "$TSDIR" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  stamp "$TSDIR" "$here/sdk/typescript/package.json" "$here/sdk/typescript/package-lock.json"
fi

JAVALIB=${SEQD_TEST_JAVA_LIB:-/var/tmp/seqd-compat-java}
need_cmd javac default-jdk-headless
need_cmd mvn maven
if ! stamp_ok "$JAVALIB" "$here/compat/java/pom.xml"; then
  rm -rf "$JAVALIB" && mkdir -p "$JAVALIB"
  mvn -q -B -Dmaven.repo.local=/var/tmp/seqd-m2 -f "$here/compat/java/pom.xml" \
    dependency:copy-dependencies -DoutputDirectory="$JAVALIB" >&2
  stamp "$JAVALIB" "$here/compat/java/pom.xml"
fi

# The Java SDK's build (sdk/java: JUnit, pgjdbc, HikariCP, Hibernate ORM),
# resolved into the same local repository; its tests run Maven against it.
JAVASDK=${SEQD_TEST_JAVA_SDK_STAMP:-/var/tmp/seqd-sdk-java}
mkdir -p "$JAVASDK"
if ! stamp_ok "$JAVASDK" "$here/sdk/java/pom.xml"; then
  mvn -q -B -Dmaven.repo.local=/var/tmp/seqd-m2 -f "$here/sdk/java/pom.xml" dependency:go-offline >&2
  stamp "$JAVASDK" "$here/sdk/java/pom.xml"
fi

# The Java ORMs on MariaDB's dialect (compat TestJavaMariaDBORMs:
# Hibernate ORM 6 and jOOQ over MariaDB Connector/J), pinned by their pom.
JAVAORMLIB=${SEQD_TEST_JAVA_ORM_LIB:-/var/tmp/seqd-compat-java-orm}
ORMPOM=$here/compat/testdata/mariadb_orm/java/pom.xml
if ! stamp_ok "$JAVAORMLIB" "$ORMPOM"; then
  rm -rf "$JAVAORMLIB" && mkdir -p "$JAVAORMLIB"
  mvn -q -B -Dmaven.repo.local=/var/tmp/seqd-m2 -f "$ORMPOM" \
    dependency:copy-dependencies -DoutputDirectory="$JAVAORMLIB" >&2
  stamp "$JAVAORMLIB" "$ORMPOM"
fi

RUSTTARGET=${SEQD_TEST_CARGO_TARGET:-/var/tmp/seqd-compat-cargo}
[ -x "$HOME/.cargo/bin/cargo" ] && PATH=$HOME/.cargo/bin:$PATH
need_cmd cargo cargo
CARGO_TARGET_DIR=$RUSTTARGET cargo build -q --release --locked \
  --manifest-path "$here/compat/rust/Cargo.toml" >&2

# PostgreSQL 15's own regression test for sequences, from Debian's source
# package of the server installed above (deb-src of the same archive).
REGRESS=${SEQD_TEST_PG_REGRESS:-/var/tmp/seqd-pg-regress}
if [ ! -f "$REGRESS/sequence.sql" ]; then
  if ! ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1 || ! grep -qs "deb-src" /etc/apt/sources.list.d/*.sources /etc/apt/sources.list; then
    sed -e 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >/etc/apt/sources.list.d/seqd-src.sources
  fi
  apt-get update -qq >&2
  need_cmd dpkg-source dpkg-dev
  pgver=$(dpkg-query -W -f '${source:Version}' postgresql-15)
  rm -rf "$REGRESS" && mkdir -p "$REGRESS" && cd "$REGRESS"
  apt-get source -qq --download-only "postgresql-15=$pgver" >&2
  tar -xjf postgresql-15_*.orig.tar.bz2 --strip-components=5 --wildcards '*/src/test/regress/sql/sequence.sql'
  rm -f postgresql-15_*
  cd "$here"
fi

# Prometheus, which the metrics test runs to scrape seqd (policy-rc.d
# keeps apt from starting its service; the test starts its own).
if ! command -v prometheus >/dev/null; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >&2
fi
# Chromium (Debian's package), which the console's browser test drives
# headless over the DevTools protocol (console TestBrowser); the test
# finds it on PATH.
if ! command -v chromium >/dev/null; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2
fi
# Redis 7 (Debian's redis-server), seqbench's peer for a fast counter
# (the redis-always and redis-everysec targets, -workload crash) and the
# bench tests': seqbench and the tests start their own servers on private
# ports and directories, so a system-wide one is neither needed nor used.
install_redis() {
  command -v redis-server >/dev/null && return
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >&2
}
install_redis
echo "export SEQD_TEST_REDIS_SERVER='$(command -v redis-server)'"
echo "export SEQD_TEST_GRPCURL='$GOTOOLS/grpcurl'"
echo "export SEQD_TEST_PROMETHEUS='$(command -v prometheus)'"
# promtool (rules' checks and unit tests) comes in the same package.
echo "export SEQD_TEST_PROMTOOL='$(dirname "$(command -v prometheus)")/promtool'"
echo "export SEQD_TEST_HELM='$GOTOOLS/helm'"

echo "export SEQD_TEST_PG_REGRESS='$REGRESS/sequence.sql'"
echo "export SEQD_TEST_NODE_MODULES='$NODEDIR/node_modules'"
echo "export SEQD_TEST_TS_MODULES='$TSDIR/node_modules'"
echo "export SEQD_TEST_JAVA_LIB='$JAVALIB'"
echo "export SEQD_TEST_JAVA_ORM_LIB='$JAVAORMLIB'"
echo "export SEQD_TEST_RUST_DRIVERS='$RUSTTARGET/release/seqd-compat'"
echo "export SEQD_TEST_PG_DSN='postgres://postgres@127.0.0.1:$PGPORT/postgres?sslmode=disable'"
echo "export SEQD_TEST_MARIADB_DSN='seqd:seqd@tcp(127.0.0.1:$MYPORT)/seqd_test'"
echo "export SEQD_TEST_PYTHON='$VENV/bin/python'"
