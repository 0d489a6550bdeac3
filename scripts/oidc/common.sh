# Shared by the scripts of scripts/oidc/ (sourced, not run).

# Waits up to 20 s for URL to answer any HTTP status; exit 1 otherwise.
oidc_wait_http() {
    local url=$1 i
    for i in $(seq 1 200); do
        curl -s -o /dev/null --max-time 1 "$url" && return 0
        sleep 0.1
    done
    echo "no answer from $url after 20 s" >&2
    return 1
}

# Waits up to 20 s for FILE to exist.
oidc_wait_file() {
    local i
    for i in $(seq 1 200); do [[ -s $1 ]] && return 0; sleep 0.1; done
    echo "$1 did not appear in 20 s" >&2
    return 1
}

# A TCP port on 127.0.0.1 that was free a moment ago (for servers that cannot take port 0).
oidc_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Exit 1 when something listens on 127.0.0.1:PORT.
oidc_port_free() {
    if python3 -c 'import socket, sys; s = socket.socket(); sys.exit(s.connect_ex(("127.0.0.1", int(sys.argv[1]))) == 0)' "$1"; then
        return 0
    fi
    echo "port $1 is still taken" >&2
    return 1
}

# Stops the process whose pid is in FILE (started by these scripts), and waits for it.
oidc_stop_pidfile() {
    local pid
    [[ -s $1 ]] || return 0
    pid=$(cat "$1")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$1"
}

# Serves the files of ROOT on 127.0.0.1 and a port the system picks (written to PORTFILE); the
# server's pid goes to PIDFILE. For stand-in documents (a fake discovery document).
oidc_static_server() {
    local root=$1 portfile=$2 pidfile=$3
    rm -f "$portfile"
    python3 - "$root" "$portfile" >/dev/null 2>&1 <<'PY' &
import functools, http.server, os, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(server.server_port))
os.replace(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
PY
    echo $! >"$pidfile"
    oidc_wait_file "$portfile"
}
