#!/usr/bin/env bash
# `make bench-server`: tokentool serve under wrk on loopback, each figure beside its floor from the same run.
#
#   scripts/bench-server.sh [--seconds S] [--connections C] [--stores "sqlite postgres"] [--instances "1 2"]
#
# Rows (requests/s, p50 and p99 latency from wrk --latency):
#   floor-http      GET /floor of a bare Hummingbird app (bench-floor): the HTTP floor of this machine
#   floor-sign      `tokentool bench --alg ES256 --op raw-sign`: the raw ES256 sign in every login and refresh
#   floor-rotate    `tokentool token bench`: refresh transactions on the same store, no HTTP (the refresh floor)
#   login-anon      POST …/auth/providers/anon-user/login {}   (a user and a session each)
#   refresh         POST …/auth/session, refresh_rotation off (the same refresh token each time)
#   refresh-rotate  POST …/auth/session, refresh_rotation on (each answer's token is used next)
#   profile         GET …/auth/profile with an access token (live-checked against the store)
#   middleware      GET /protected of bench-floor behind AccessTokenMiddleware (the server's JWKS, the cache)
# with 1 and 2 server instances (2: one PostgreSQL database, or one SQLite file), wrk split between them.
# Needs wrk (Debian) and the release build (make release builds it). Everything listens on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_PER_ROW=10
CONNECTIONS=32
STORES="sqlite postgres"
INSTANCES="1 2"
while [ $# -gt 0 ]; do
    case $1 in
        --seconds) SECONDS_PER_ROW=$2; shift 2 ;;
        --connections) CONNECTIONS=$2; shift 2 ;;
        --stores) STORES=$2; shift 2 ;;
        --instances) INSTANCES=$2; shift 2 ;;
        *) sed -n '2,20p' "$0" >&2; exit 2 ;;
    esac
done
BIN=${TOKENTOOL:-$ROOT/.build/release/tokentool}
FLOOR=${BENCH_FLOOR:-$ROOT/.build/release/bench-floor}
for b in "$BIN" "$FLOOR"; do [ -x "$b" ] || { echo "bench-server: $b is not built (make bench-server builds it)" >&2; exit 2; }; done
command -v wrk >/dev/null || { echo "bench-server: wrk is not installed (apt-get install wrk)" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-server.XXXXXX")
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait 2>/dev/null || true
            [ -n "${PG_STOP:-}" ] && eval "$PG_STOP"; rm -rf "$WORK"; }
trap cleanup EXIT
say() { printf 'bench-server: %s\n' "$*" >&2; }

# start_listener LOG CMD...: runs CMD in the background and prints the URL of its `listening on` line.
start_listener() {
    local log=$1; shift
    "$@" > "$log" 2> "$log.err" &
    PIDS+=($!)
    local i url
    for i in $(seq 1 400); do
        url=$(sed -n 's/^listening on //p' "$log")
        [ -n "$url" ] && { echo "$url"; return 0; }
        sleep 0.05
    done
    say "no 'listening on' from $*"; cat "$log.err" >&2; exit 1
}

# wrk_row NAME FLOOR_NAME URLS... (LUA, BEARER, BODY, TOKENS_FILE in the environment): runs one wrk per
# URL at once for SECONDS_PER_ROW with the connections split, and prints one table row.
ROWS=()
wrk_row() {
    local name=$1; shift
    local n=$# i=0 url
    local per=$(( CONNECTIONS / n )); [ "$per" -ge 1 ] || per=1
    for url in "$@"; do
        THREADS=1 wrk -t1 -c"$per" -d"${SECONDS_PER_ROW}s" --latency -s "$ROOT/scripts/wrk/$LUA" "$url" > "$WORK/wrk.$i" 2>&1 &
        i=$((i + 1))
    done
    wait $(jobs -p | tail -n "$n") 2>/dev/null || true
    python3 "$ROOT/scripts/wrk/summarize.py" "$name" "$WORK"/wrk.* >> "$WORK/rows"
    rm -f "$WORK"/wrk.*
}
