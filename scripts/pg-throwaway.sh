#!/usr/bin/env bash
# A throwaway PostgreSQL server on a free loopback port, for trying the PostgreSQL session
# store and for `tokentool token bench`. The test suite starts its own; this is for people.
#
#   eval "$(scripts/pg-throwaway.sh start)"    # exports TOKENTOOL_PG_DIR and TOKENTOOL_PG_URL
#   tokentool token issue --store "$TOKENTOOL_PG_URL" --sub alice
#   scripts/pg-throwaway.sh stop "$TOKENTOOL_PG_DIR"
#
# Runs the server as the `postgres` OS user when started as root (PostgreSQL refuses root).
# `start --fast` turns off fsync (tests only: a crash can lose committed data).
set -euo pipefail

pg_bin() {
    if [[ -n "${TOKENTOOL_PG_BIN:-}" ]]; then echo "$TOKENTOOL_PG_BIN"; return; fi
    local d
    d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    if [[ -z "$d" ]]; then
        echo "PostgreSQL is not installed (apt-get install postgresql, or scripts/ensure-postgres.sh)" >&2
        exit 2
    fi
    echo "$d"
}

as_pg() { if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

case "${1:-}" in
start)
    bin=$(pg_bin)
    extra=""
    [[ "${2:-}" == "--fast" ]] && extra="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    dir=$(mktemp -d /tmp/tokentool-pg.XXXXXX)
    [[ $(id -u) -eq 0 ]] && chown postgres "$dir"
    as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >/dev/null
    port=$(free_port)
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 $extra" start >/dev/null
    as_pg "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres tokentool
    echo "export TOKENTOOL_PG_DIR=$dir"
    echo "export TOKENTOOL_PG_URL=postgres://postgres@127.0.0.1:$port/tokentool"
    ;;
stop)
    dir=${2:?usage: $0 stop DIR}
    [[ -d "$dir/data" ]] || { echo "no server in $dir" >&2; exit 2; }
    as_pg "$(pg_bin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start [--fast] | stop DIR" >&2
    exit 2
    ;;
esac
