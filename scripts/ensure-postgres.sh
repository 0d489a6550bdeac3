#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries are installed (Debian packages), so that `make test`
# can run the session-store suite against a throwaway server. Needs root to install.
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || [[ -n "${TOKENTOOL_PG_BIN:-}" ]]; then
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    echo "PostgreSQL is not installed and this is not root: install the Debian package 'postgresql'" >&2
    exit 1
fi
echo "installing PostgreSQL from Debian's packages…" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends postgresql >/dev/null \
    || { apt-get update >/dev/null && apt-get install -y --no-install-recommends postgresql >/dev/null; }
# The package starts a cluster of its own; the tests do not use it.
(command -v pg_ctlcluster >/dev/null && pg_lsclusters -h 2>/dev/null | while read -r ver name _; do
    pg_ctlcluster "$ver" "$name" stop 2>/dev/null || true; done) || true
ls /usr/lib/postgresql/*/bin/initdb >/dev/null
