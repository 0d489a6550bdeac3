#!/usr/bin/env bash
# `make bench-server`: tokentool serve under wrk on loopback, each figure beside its floor from the same run.
#
#   scripts/bench-server.sh [--seconds S] [--connections C] [--repeat R] [--stores "sqlite postgres"]
#                           [--instances "1 2"] [--rows "login refresh refresh-rotate profile jwks middleware code-flow userinfo"]
#                           [--quick] [--overload] [--soak SECONDS]
#
# Rows (requests/s, p50 and p99 latency from wrk --latency; R runs of each row, the median kept):
#   floor-http      GET /floor of a bare Hummingbird app (bench-floor): the HTTP floor of this machine
#   floor-sign      `tokentool bench --alg ES256 --op raw-sign --threads NPROC`: the raw ES256 sign
#   floor-login     `tokentool token bench --op login` on the server's store, no HTTP (the login floor)
#   floor-refresh   `tokentool token bench --op refresh` (refresh keeping the token), no HTTP
#   floor-rotate    `tokentool token bench --op rotate` (one rotation), no HTTP
#   floor-profile   `tokentool token bench --op profile`: the profile's store work (live check, identities), no HTTP
#   login           POST …/app/bench-keep/auth/providers/anon-user/login {} (a new user and session each)
#   refresh         POST …/auth/session, refresh_rotation off (2 sessions per connection, sent in turn)
#   refresh-rotate  POST …/auth/session, refresh_rotation on (each answer's token is used next)
#   profile         GET …/auth/profile with an access token (live-checked against the store)
#   jwks            GET /.well-known/jwks.json of the server (the key ring's document, kept between reads)
#   middleware      GET /protected of bench-floor behind AccessTokenMiddleware (the server's JWKS, the cache)
#   code-flow       whole OpenID Connect code flows of a browser already signed in (scripts/wrk/code-flow.lua):
#                   GET /oauth/authorize with the OP session cookie and PKCE (302 with a code), then POST
#                   /oauth/token (200: ID token RS256, access and refresh token); flows/s, latency per request.
#                   Beside floor-login (the store work of a new sign-in) and floor-http; no target of its
#                   own: the peer benchmark beside Glewlwyd (its glewlwyd/run.sh) runs the same flows against both
#   userinfo        GET /oauth/userinfo with an OIDC access token (checked live, the user read)
# with 1 and 2 server instances (2: one PostgreSQL database, or one SQLite file; as many bench-floors
# for floor-http and middleware), wrk's connections split between them. The ratio column is a row's
# requests/s over its floor's; the target column is the project's targets (docs/performance.md: middleware 80 % of floor-http, profile
# and jwks 50 % of floor-http, login and refreshes 50 % of their store floors). The store columns put each
# server row beside the same work done on the store without HTTP (what bounds it).
#
# --quick: 3 s rows, SQLite, 1 instance, no repeats. --overload: after a store's 1-instance rows, the
# open-loop generator (scripts/wrk/openloop.py) offers twice the measured login and refresh rates for
# S seconds and reports p99 over every answer (503s included). --soak N: N seconds of login+refresh
# load on one SQLite instance, the server's VmRSS sampled every 10 s (first/last/max in KiB).
#
# Progress goes to stderr, the table (Markdown) to stdout. Needs wrk (Debian), python3, and the release
# builds of tokentool and bench-floor (`make bench-server` builds both). Everything listens on 127.0.0.1;
# PostgreSQL is a throwaway server (scripts/pg-throwaway.sh) stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_PER_ROW=10
CONNECTIONS=32
REPEAT=1
STORES="sqlite postgres"
INSTANCES="1 2"
ROWS_WANTED="login refresh refresh-rotate profile jwks middleware code-flow userinfo"
OVERLOAD=0
SOAK=0
while [ $# -gt 0 ]; do
    case $1 in
        --seconds) SECONDS_PER_ROW=$2; shift 2 ;;
        --connections) CONNECTIONS=$2; shift 2 ;;
        --repeat) REPEAT=$2; shift 2 ;;
        --stores) STORES=$2; shift 2 ;;
        --instances) INSTANCES=$2; shift 2 ;;
        --rows) ROWS_WANTED=$2; shift 2 ;;
        --quick) SECONDS_PER_ROW=3; STORES=sqlite; INSTANCES=1; REPEAT=1; shift ;;
        --overload) OVERLOAD=1; shift ;;
        --soak) SOAK=$2; shift 2 ;;
        *) sed -n '2,38p' "$0" >&2; exit 2 ;;
    esac
done
BIN=${TOKENTOOL:-$ROOT/.build/release/tokentool}
FLOOR=${BENCH_FLOOR:-$ROOT/.build/release/bench-floor}
for b in "$BIN" "$FLOOR"; do [ -x "$b" ] || { echo "bench-server: $b is not built (make bench-server builds it)" >&2; exit 2; }; done
command -v wrk >/dev/null || { echo "bench-server: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
BASE=/api/client/v2.0

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-server.XXXXXX")
chmod 755 "$WORK"
PIDS=()
PG_DIR=""
stop_all() {
    local p
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    PIDS=()
}
cleanup() {
    stop_all
    [ -n "$PG_DIR" ] && "$ROOT/scripts/pg-throwaway.sh" stop "$PG_DIR" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
say() { printf 'bench-server: %s\n' "$*" >&2; }
json_get() { python3 -c 'import json,sys; v=json.load(sys.stdin); print(v[sys.argv[1]] if v.get(sys.argv[1]) is not None else "")' "$1"; }

# start_listener LOG CMD...: runs CMD in the background (its pid into PIDS) and sets URL from its
# `listening on` line. Not in a $(...) subshell: the pid must reach this shell's PIDS.
start_listener() {
    local log=$1; shift
    "$@" > "$log" 2> "$log.err" &
    PIDS+=($!)
    local i
    URL=""
    for i in $(seq 1 600); do
        URL=$(sed -n 's/^listening on //p' "$log" 2>/dev/null || true)
        [ -n "$URL" ] && return 0
        kill -0 "${PIDS[-1]}" 2>/dev/null || break
        sleep 0.05
    done
    say "no 'listening on' from $*"; cat "$log.err" >&2; exit 1
}

# config STORE: the server's config, two apps differing in refresh_rotation. Limits at their largest
# (the throttle still counts every login in the store, as in production; it just never refuses here).
config() {
    cat > "$WORK/server.json" <<EOF
{
  "public_url": "http://127.0.0.1",
  "store": "$1",
  "master_key_file": "$WORK/master.key",
  "limits": { "login_per_address": "100000/1s", "anonymous_per_address": "100000/1s" },
  "apps": {
    "bench-keep": { "refresh_rotation": false, "providers": { "anon-user": {}, "local-userpass": { "auto_confirm": true } } },
    "bench-rotate": { "refresh_rotation": true, "providers": { "anon-user": {} } }
  },
  "clients": {
    "bench-rp": { "app": "bench-keep", "secret_file": "$WORK/rp.secret", "redirect_uris": ["http://127.0.0.1/cb"],
                  "first_party": true, "require_pkce": true }
  }
}
EOF
}

# oidc_signin URL: the relying party's user signs in once through the hosted login page
# (scripts/oidc/flows.py): the OP session cookie into $WORK/op.cookie, an OIDC access token into $WORK/oidc.access.
oidc_signin() {
    python3 "$ROOT/scripts/oidc/flows.py" signin --url "$1" --app bench-keep --client bench-rp --secret-file "$WORK/rp.secret" \
        --redirect http://127.0.0.1/cb --email bench@example.com --password-file "$WORK/user.password" \
        --cookie-out "$WORK/op.cookie" --access-out "$WORK/oidc.access"
}

# login URL APP: one anonymous login; prints the JSON answer.
login() { curl -sf -X POST -H 'Content-Type: application/json' -d '{}' "$1$BASE/app/$2/auth/providers/anon-user/login"; }

# median FILE...: the summary (JSON) whose rps is the median of the files'.
median() { python3 - "$@" <<'EOF'
import json, sys
rows = sorted((json.load(open(p)) for p in sys.argv[1:]), key=lambda r: r["rps"])
print(json.dumps(rows[len(rows) // 2]))
EOF
}

# record STORE INSTANCES NAME FLOOR_NAME TARGET SUMMARY_JSON: one line of the table's data.
record() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$(cmd_of "$3")" >> "$WORK/rows"; }
cmd_of() {
    case $1 in
        floor-http) echo "wrk -c$CONNECTIONS -d${SECONDS_PER_ROW}s GET /floor (bench-floor)" ;;
        floor-sign) echo "tokentool bench --alg ES256 --op raw-sign --threads $(nproc) --seconds $SECONDS_PER_ROW" ;;
        floor-login|floor-refresh|floor-rotate|floor-profile) echo "tokentool token bench --op ${1#floor-} --concurrency $CONNECTIONS --seconds $SECONDS_PER_ROW --store S" ;;
        login) echo "wrk -s post-json.lua POST $BASE/app/bench-keep/auth/providers/anon-user/login" ;;
        refresh) echo "wrk -s refresh-keeping.lua POST $BASE/auth/session (bench-keep tokens, 2 sessions per connection)" ;;
        refresh-rotate) echo "wrk -s refresh-rotating.lua POST $BASE/auth/session (bench-rotate tokens)" ;;
        profile) echo "wrk -s get-bearer.lua GET $BASE/auth/profile" ;;
        jwks) echo "wrk -s plain.lua GET /.well-known/jwks.json" ;;
        middleware) echo "wrk -s get-bearer.lua GET /protected (bench-floor --jwks the server's)" ;;
        code-flow) echo "wrk -s code-flow.lua GET /oauth/authorize (OP session cookie) + POST /oauth/token: flows/s" ;;
        userinfo) echo "wrk -s get-bearer.lua GET /oauth/userinfo (an OIDC access token)" ;;
    esac
}

# wrk_row NAME LUA URLS... (BEARER, BODY, TOKENS_BASE in the environment): REPEAT runs of one wrk per URL
# at once for SECONDS_PER_ROW with the connections split; prints the median run's summary (JSON).
wrk_row() {
    local name=$1 lua=$2; shift 2
    local n=$# per=$(( CONNECTIONS / $# )) r i url pids
    [ "$per" -ge 1 ] || per=1
    for r in $(seq 1 "$REPEAT"); do
        # A rotating run spends its tokens (presented again they would end their sessions): new ones each run.
        [ -n "${TOKENS_BASE:-}" ] && session_tokens "${TOKENS_APP:-bench-rotate}" "$TOKENS_BASE" "${SERVERS[@]}"
        i=0; pids=()
        for url in "$@"; do
            TOKENS_FILE="${TOKENS_BASE:-}.$i" THREADS=1 wrk -t1 -c"$per" -d"${SECONDS_PER_ROW}s" --timeout 10s --latency \
                -s "$ROOT/scripts/wrk/$lua" "$url" > "$WORK/wrk.$i" 2>&1 &
            pids+=($!); i=$((i + 1))
        done
        wait "${pids[@]}"
        python3 "$ROOT/scripts/wrk/summarize.py" "$WORK"/wrk.* > "$WORK/run.$r"
        rm -f "$WORK"/wrk.*
        say "  $name run $r: $(cat "$WORK/run.$r")"
    done
    median "$WORK"/run.*
    rm -f "$WORK"/run.*
}

# store_floor OP STORE: REPEAT runs of `tokentool token bench --op OP`, the median as a summary.
store_floor() {
    local r
    for r in $(seq 1 "$REPEAT"); do
        "$BIN" token bench --op "$1" --store "$2" --master-key-file "$WORK/master.key" --seconds "$SECONDS_PER_ROW" \
            --concurrency "$CONNECTIONS" --json | python3 -c 'import json,sys; v=json.load(sys.stdin); print(json.dumps({"rps": v["rotations_per_sec"], "p50_ms": None, "p99_ms": None, "requests": v["rotations"], "errors": 0}))' > "$WORK/run.$r"
        say "  floor-$1 run $r: $(cat "$WORK/run.$r")"
    done
    median "$WORK"/run.*
    rm -f "$WORK"/run.*
}

wanted() { [[ " $ROWS_WANTED " == *" $1 "* ]]; }

# session_tokens APP BASE URL... : 2 refresh tokens of APP per connection, each of its own session,
# in BASE.0, BASE.1, ... (a file per instance).
session_tokens() {
    local app=$1 base=$2; shift 2
    local i=0 url per=$(( CONNECTIONS / $# )) k
    [ "$per" -ge 1 ] || per=1
    for url in "$@"; do
        : > "$base.$i"
        for k in $(seq 1 $((2 * per))); do login "$url" "$app" | json_get refresh_token >> "$base.$i"; done
        i=$((i + 1))
    done
}

# overload NAME RATE CMD-ARGS...: the open-loop generator at RATE for SECONDS_PER_ROW.
overload() {
    local name=$1 rate=$2; shift 2
    say "  overload $name at $rate/s offered"
    python3 "$ROOT/scripts/wrk/openloop.py" --rate "$rate" --seconds "$SECONDS_PER_ROW" --max-connections 1000 "$@" > "$WORK/ol.json"
    cat "$WORK/ol.json" >&2
    cat "$WORK/ol.json"
}

head -c 32 /dev/urandom > "$WORK/master.key"
python3 -c 'import secrets; print(secrets.token_urlsafe(32))' > "$WORK/rp.secret"
python3 -c 'import secrets; print(secrets.token_urlsafe(24))' > "$WORK/user.password"
chmod 600 "$WORK/rp.secret" "$WORK/user.password"
: > "$WORK/overload.rows"
chmod 600 "$WORK/master.key"
: > "$WORK/rows"

say "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "start_load=$(cut -d' ' -f1-3 /proc/loadavg)" > "$WORK/meta"

if [ "$SOAK" -gt 0 ]; then STORES=sqlite; INSTANCES=1; fi

for store in $STORES; do
    case $store in
        sqlite) mkdir -p "$WORK/sqlite"; location="$WORK/sqlite/sessions.sqlite" ;;
        postgres)
            eval "$("$ROOT/scripts/pg-throwaway.sh" start)"
            PG_DIR=$TOKENTOOL_PG_DIR; location=$TOKENTOOL_PG_URL ;;
        *) say "unknown store $store"; exit 2 ;;
    esac
    config "$location"
    for n in $INSTANCES; do
        say "$store, $n instance(s)"
        servers=(); floors=(); floors_mw=()
        for i in $(seq 1 "$n"); do
            start_listener "$WORK/serve.$i" "$BIN" serve --config "$WORK/server.json" --listen 127.0.0.1:0
            servers+=("$URL")
        done
        SERVER_PID=${PIDS[0]}
        SERVERS=("${servers[@]}")
        first=$(login "${servers[0]}" bench-keep)
        ACCESS=$(echo "$first" | json_get access_token)
        REFRESH=$(echo "$first" | json_get refresh_token)
        for i in $(seq 1 "$n"); do
            start_listener "$WORK/floor.$i" "$FLOOR" --jwks "${servers[0]}/.well-known/jwks.json" --issuer http://127.0.0.1 --audience bench-keep
            floors+=("$URL/floor"); floors_mw+=("$URL/protected")
        done

        if [ "$SOAK" -gt 0 ]; then
            say "soak: $SOAK s of login + refresh load, VmRSS of pid $SERVER_PID every 10 s"
            session_tokens bench-rotate "$WORK/rotate" "${servers[@]}"
            wrk -t1 -c$((CONNECTIONS / 2)) -d"${SOAK}s" -s "$ROOT/scripts/wrk/post-json.lua" \
                "${servers[0]}$BASE/app/bench-keep/auth/providers/anon-user/login" > "$WORK/soak.login" 2>&1 &
            w1=$!
            BEARER=$REFRESH wrk -t1 -c$((CONNECTIONS / 2)) -d"${SOAK}s" -s "$ROOT/scripts/wrk/post-json.lua" \
                "${servers[0]}$BASE/auth/session" > "$WORK/soak.refresh" 2>&1 &
            w2=$!
            t=0
            while kill -0 "$w1" 2>/dev/null; do
                rss=$(awk '/^VmRSS/ {print $2}' "/proc/$SERVER_PID/status")
                echo "$t $rss" >> "$WORK/soak.rss"; say "  t=${t}s VmRSS ${rss} KiB"
                sleep 10; t=$((t + 10))
            done
            wait "$w1" "$w2" || true
            python3 - "$WORK/soak.rss" "$WORK/soak.login" "$WORK/soak.refresh" <<'EOF'
import re, sys
samples = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
rss = [s[1] for s in samples]
def rps(p):
    m = re.search(r"Requests/sec:\s+([0-9.]+)", open(p).read()); return m.group(1) if m else "?"
print("| soak | seconds | samples | first VmRSS KiB | last VmRSS KiB | max VmRSS KiB | logins/s | refreshes/s |")
print("|---|---|---|---|---|---|---|---|")
print("| sqlite, 1 instance | %d | %d | %d | %d | %d | %s | %s |" % (samples[-1][0], len(samples), rss[0], rss[-1], max(rss), rps(sys.argv[2]), rps(sys.argv[3])))
print()
print("samples (seconds, KiB): " + " ".join("%d:%d" % s for s in samples))
EOF
            exit 0
        fi

        s=$(wrk_row floor-http plain.lua "${floors[@]}"); record "$store" "$n" floor-http - - "$s"
        if [ "$n" = "$(echo $INSTANCES | cut -d' ' -f1)" ]; then
            if [ "$store" = "$(echo $STORES | cut -d' ' -f1)" ]; then
                r=$("$BIN" bench --alg ES256 --op raw-sign --threads "$(nproc)" --seconds "$SECONDS_PER_ROW" --json \
                    | python3 -c 'import json,sys; v=[json.loads(l) for l in sys.stdin if l.strip()][0]; print(json.dumps({"rps": round(v.get("ops_per_sec", 0), 1), "p50_ms": None, "p99_ms": None, "requests": 0, "errors": 0}))')
                say "  floor-sign: $r"; record "$store" "$n" floor-sign - - "$r"
            fi
            { wanted login || wanted code-flow; } && { s=$(store_floor login "$location"); record "$store" "$n" floor-login - - "$s"; }
            wanted refresh && { s=$(store_floor refresh "$location"); record "$store" "$n" floor-refresh - - "$s"; }
            wanted refresh-rotate && { s=$(store_floor rotate "$location"); record "$store" "$n" floor-rotate - - "$s"; }
            { wanted profile || wanted userinfo; } && { s=$(store_floor profile "$location"); record "$store" "$n" floor-profile - - "$s"; }
        fi
        urls() { local u; for u in "${servers[@]}"; do echo "$u$1"; done; }
        if wanted login; then
            s=$(BODY='{}' wrk_row login post-json.lua $(urls "$BASE/app/bench-keep/auth/providers/anon-user/login"))
            record "$store" "$n" login floor-login 0.5 "$s"
        fi
        if wanted refresh; then
            s=$(TOKENS_APP=bench-keep TOKENS_BASE="$WORK/keep" wrk_row refresh refresh-keeping.lua $(urls "$BASE/auth/session"))
            record "$store" "$n" refresh floor-refresh 0.5 "$s"
        fi
        if wanted refresh-rotate; then
            s=$(TOKENS_BASE="$WORK/rotate" wrk_row refresh-rotate refresh-rotating.lua $(urls "$BASE/auth/session"))
            record "$store" "$n" refresh-rotate floor-rotate 0.5 "$s"
        fi
        if wanted profile; then
            s=$(BEARER=$ACCESS wrk_row profile get-bearer.lua $(urls "$BASE/auth/profile"))
            record "$store" "$n" profile floor-http 0.5 "$s"
        fi
        if wanted jwks; then
            s=$(wrk_row jwks plain.lua $(urls "/.well-known/jwks.json"))
            record "$store" "$n" jwks floor-http 0.5 "$s"
        fi
        if wanted middleware; then
            s=$(BEARER=$ACCESS wrk_row middleware get-bearer.lua "${floors_mw[@]}")
            record "$store" "$n" middleware floor-http 0.8 "$s"
        fi
        if wanted code-flow || wanted userinfo; then oidc_signin "${servers[0]}"; fi
        if wanted code-flow; then
            s=$(COOKIE=$(cat "$WORK/op.cookie") CLIENT_ID=bench-rp REDIRECT_URI=http://127.0.0.1/cb \
                CLIENT_BASIC=$(printf 'bench-rp:%s' "$(cat "$WORK/rp.secret")" | base64 -w0) \
                wrk_row code-flow code-flow.lua $(urls ""))
            record "$store" "$n" code-flow floor-login - "$s"
        fi
        if wanted userinfo; then
            s=$(BEARER=$(cat "$WORK/oidc.access") wrk_row userinfo get-bearer.lua $(urls /oauth/userinfo))
            record "$store" "$n" userinfo floor-http 0.5 "$s"
        fi
        if [ "$OVERLOAD" = 1 ] && [ "$n" = 1 ]; then
            for row in login refresh; do
                cap=$(awk -F'\t' -v s="$store" -v r="$row" '$1 == s && $2 == 1 && $3 == r {print $6}' "$WORK/rows" | json_get rps 2>/dev/null || true)
                [ -n "$cap" ] || continue
                rate=$(python3 -c "print(round(2 * $cap))")
                if [ "$row" = login ]; then
                    o=$(overload "$store login" "$rate" --url "${servers[0]}$BASE/app/bench-keep/auth/providers/anon-user/login" --method POST --body '{}')
                else
                    o=$(overload "$store refresh" "$rate" --url "${servers[0]}$BASE/auth/session" --method POST --body '' --header "Authorization: Bearer $REFRESH")
                fi
                printf '%s\t%s\t%s\n' "$store" "$row" "$o" >> "$WORK/overload.rows"
            done
        fi
        stop_all
    done
    if [ -n "$PG_DIR" ]; then "$ROOT/scripts/pg-throwaway.sh" stop "$PG_DIR"; PG_DIR=""; fi
done

echo "end_load=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$WORK/meta"
python3 - "$WORK/rows" "$WORK/meta" "$WORK/overload.rows" "$CONNECTIONS" "$SECONDS_PER_ROW" "$REPEAT" <<'EOF'
import json, os, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
meta = dict(l.strip().split("=", 1) for l in open(sys.argv[2]) if "=" in l)
floors = {}
for store, n, name, floor, target, summary, cmd in rows:
    if name.startswith("floor-"):
        floors[(store, n, name)] = json.loads(summary)["rps"]
def floor_of(store, n, name):
    # store floors are measured once per store (no HTTP: the instance count does not change them)
    for key in ((store, n, name), (store, "1", name)) + tuple(k for k in floors if k[2] == name):
        if key in floors: return floors[key]
    return None
f = lambda v: "-" if v is None else ("%.2f" % v if v < 100 else "%.0f" % v)
print("%d connections, %s s per row, median of %s run(s); load average %s at the start, %s at the end; %d cores"
      % (int(sys.argv[4]), sys.argv[5], sys.argv[6], meta.get("start_load"), meta.get("end_load"), os.cpu_count()))
print()
STORE_FLOOR = {"login": "floor-login", "refresh": "floor-refresh", "refresh-rotate": "floor-rotate", "profile": "floor-profile",
               "code-flow": "floor-login", "userinfo": "floor-profile"}
print("| store | inst | row | req/s | p50 ms | p99 ms | errors | floor | floor req/s | ratio | target | met | store floor req/s | ratio to it |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for store, n, name, floor, target, summary, cmd in rows:
    s = json.loads(summary)
    fr = floor_of(store, n, floor) if floor != "-" else None
    ratio = s["rps"] / fr if fr else None
    met = "-" if target == "-" or ratio is None else ("yes" if ratio >= float(target) and s["errors"] == 0 else "NO")
    sf = floor_of(store, n, STORE_FLOOR[name]) if name in STORE_FLOOR else None
    print("| %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
        store, n, name, f(s["rps"]), f(s["p50_ms"]), f(s["p99_ms"]), s["errors"], floor, f(fr),
        "-" if ratio is None else "%.0f %%" % (100 * ratio), "-" if target == "-" else "≥ %.0f %%" % (100 * float(target)), met,
        f(sf), "-" if not sf else "%.0f %%" % (100 * s["rps"] / sf)))
if os.path.exists(sys.argv[3]) and os.path.getsize(sys.argv[3]):
    print()
    print("| overload (open loop, 2x the row's req/s) | offered/s | answered/s | 2xx | 503 | other | timeouts | p50 ms | p99 ms | max ms | p99 2xx ms | p99 ≤ 1 s | generator CPU s | generator behind p99 ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for line in open(sys.argv[3]):
        if line.count("\t") != 2: continue
        store, row, o = line.rstrip("\n").split("\t")
        o = json.loads(o)
        st = o["status"]
        ok = sum(v for k, v in st.items() if k.startswith("2"))
        s503 = st.get("503", 0)
        other = sum(st.values()) - ok - s503 + o["errors"]
        print("| %s %s | %.0f | %.0f | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            store, row, o["offered_rps"], o["answered_rps"], ok, s503, other, o["timeouts"], f(o["p50_ms"]), f(o["p99_ms"]),
            f(o["max_ms"]), f(o["p99_2xx_ms"]), "yes" if o["p99_ms"] is not None and o["p99_ms"] <= 1000 and o["timeouts"] == 0 else "NO",
            o.get("generator_cpu_s", "-"), f(o.get("behind_ms"))))
print()
print("Commands (S = the store: the server's SQLite file or the throwaway PostgreSQL URL; wrk -t1 --latency per instance):")
seen = set()
for store, n, name, floor, target, summary, cmd in rows:
    if name not in seen:
        seen.add(name); print("- %s: `%s`" % (name, cmd))
EOF
