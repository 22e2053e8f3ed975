#!/usr/bin/env bash
# A throwaway PostgreSQL for the tests: its own cluster in a temporary directory, on a free
# loopback port, trusting local connections, tuned for speed over durability (fsync off). Debian's
# `postgresql` package provides the binaries (`apt-get install -y postgresql`).
#
#   eval "$(scripts/postgres-for-tests.sh start)"   # exports RATECARD_TEST_POSTGRES_URL and _DIR
#   scripts/postgres-for-tests.sh stop [DIR]         # stops it and removes DIR (default: _DIR)
#   scripts/postgres-for-tests.sh run COMMAND...     # start, run COMMAND with the URL and
#                                                    # RATECARD_TEST_DATABASE=postgresql, stop
#
# RATECARD_TEST_POSTGRES_URL is a superuser URL to the `postgres` database: tests create a
# database of their own in it. PostgreSQL refuses to run as root, so as root the cluster runs as
# the `postgres` user (runuser) in a directory that user owns.
set -euo pipefail

bin="${POSTGRES_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "postgres-for-tests.sh: no PostgreSQL found; install it with: apt-get install -y postgresql" >&2
  exit 1
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

start() {
  local dir port
  dir="$(mktemp -d "${TMPDIR:-/tmp}/ratecard-postgres.XXXXXX")"
  chmod 755 "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
    >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
  port="$(free_port)"
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 start -o \
    "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    >/dev/null || { cat "$dir/postgres.log" >&2; exit 1; }
  echo "export RATECARD_TEST_POSTGRES_URL=postgresql://postgres@127.0.0.1:$port/postgres"
  echo "export RATECARD_TEST_POSTGRES_DIR=$dir"
}

stop() {
  local dir="${1:-${RATECARD_TEST_POSTGRES_DIR:-}}"
  if [ -z "$dir" ] || [ ! -d "$dir/data" ]; then
    echo "postgres-for-tests.sh: no cluster directory to stop" >&2
    exit 1
  fi
  as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  run)
    shift
    eval "$(start)"
    trap 'stop "$RATECARD_TEST_POSTGRES_DIR"' EXIT
    RATECARD_TEST_DATABASE=postgresql "$@"
    ;;
  *)
    sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
