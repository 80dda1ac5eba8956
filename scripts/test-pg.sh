#!/usr/bin/env bash
# npm run test:pg: the whole suite (or the files given) on PostgreSQL. Starts
# what it needs on this machine: the PostgreSQL cluster at 127.0.0.1:5432 if it
# is not answering, a streaming replica of it (.ci/replica, as root: the
# read-replica tests), Redis at 127.0.0.1:6379 if redis-server is installed
# (the shared rate-limit tests); then runs vitest with TEST_DATABASE_URL set
# to a database of this run's own, dropped at the end. Extra arguments go to
# vitest (`npm run test:pg -- test/db`).
set -euo pipefail
cd "$(dirname "$0")/.."

pg_host=127.0.0.1
pg_port="${PGPORT:-5432}"
psql_admin() { psql -h "${pg_host}" -p "${pg_port}" -U postgres -d postgres -Atqc "$1"; }

if ! pg_isready -h "${pg_host}" -p "${pg_port}" -q; then
  echo "== starting PostgreSQL (cluster main)" >&2
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
  for _ in $(seq 1 30); do pg_isready -h "${pg_host}" -p "${pg_port}" -q && break; sleep 1; done
fi
pg_isready -h "${pg_host}" -p "${pg_port}"

if [ -z "${TEST_DATABASE_READ_URL:-}" ]; then
  if [ "$(id -u)" = 0 ] && [ "${pg_port}" = 5432 ] && command -v pg_createcluster >/dev/null; then
    echo "== a streaming replica (.ci/replica)" >&2
    replica_port="$(.ci/replica | tail -n 1)"
    export TEST_DATABASE_READ_URL="postgres://postgres@${pg_host}:${replica_port}/postgres"
    export TEST_DATABASE_READ_CLUSTER="$(($(psql_admin 'show server_version_num') / 10000))/replica"
  else
    echo "== no replica (needs root and pg_createcluster): the read-replica tests skip" >&2
  fi
fi

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  if command -v redis-server >/dev/null; then
    echo "== starting Redis" >&2
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no
    for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
  else
    echo "== no Redis (redis-server not installed): the shared rate-limit tests skip" >&2
  fi
fi

run_db="test_pg_$(date +%s)_$$"
psql_admin "CREATE DATABASE ${run_db}" >/dev/null
trap 'psql_admin "DROP DATABASE IF EXISTS ${run_db} WITH (FORCE)" >/dev/null || true' EXIT
echo "== tests on PostgreSQL ${pg_host}:${pg_port}, Node $(node -v)" >&2
TEST_DATABASE_URL="postgres://postgres@${pg_host}:${pg_port}/${run_db}" \
  node node_modules/vitest/vitest.mjs run "$@"
