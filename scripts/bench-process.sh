#!/usr/bin/env bash
# `tokentool verify` as a whole process against `openssl dgst -sha256 -verify` on the same RS256
# signature: ROUNDS rounds of hyperfine, the two commands in alternating order, RUNS runs
# each; prints each round's medians and the median of the per-round ratios. Rounds, not one long
# run, because this 2-core VM's timings drift by tens of percent within a minute.
# Usage: scripts/bench-process.sh [TOKENTOOL]   (default .build/release/tokentool; see `make release`)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/.build/release/tokentool}")
ROUNDS=${ROUNDS:-10}
RUNS=${RUNS:-100}
command -v hyperfine >/dev/null || { echo "bench-process: needs hyperfine (apt-get install hyperfine)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
# The key as the peers' benchmark has it (RSA-2048, SPKI PEM) and the workload claims.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out key.pem 2>/dev/null
openssl pkey -in key.pem -pubout -out key.pub.pem
"$bin" sign --key key.pem --alg RS256 --kid bench --claims "$root/TestVectors/bench/workload.json" > token.jwt
token=$(cat token.jwt)
printf '%s' "${token%.*}" > input
python3 -c "import base64,sys; s=sys.argv[1].split('.')[2]; open('sig','wb').write(base64.urlsafe_b64decode(s+'='*(-len(s)%4)))" "$token"
"$bin" verify --key key.pub.pem --kid bench "$token" >/dev/null
openssl dgst -sha256 -verify key.pub.pem -signature sig input >/dev/null
ours="$bin verify --key key.pub.pem --kid bench $token"
theirs="openssl dgst -sha256 -verify key.pub.pem -signature sig input"
for r in $(seq "$ROUNDS"); do
    if (( r % 2 )); then order=("$ours" "$theirs"); else order=("$theirs" "$ours"); fi
    hyperfine -N --warmup 10 --runs "$RUNS" --export-json "round$r.json" "${order[@]}" >/dev/null 2>&1
done
python3 - "$ROUNDS" "$ours" <<'PY'
import json, statistics, sys
rounds, ours = int(sys.argv[1]), sys.argv[2]
ratios, a, b = [], [], []
for r in range(1, rounds + 1):
    res = json.load(open(f"round{r}.json"))["results"]
    t = {x["command"] == ours: x["median"] * 1000 for x in res}
    a.append(t[True]); b.append(t[False]); ratios.append(t[True] / t[False])
    print(f"round {r:2}: tokentool {t[True]:6.2f} ms   openssl {t[False]:6.2f} ms   ratio {ratios[-1]:.2f}")
print(f"median of {rounds} rounds: tokentool {statistics.median(a):.2f} ms, openssl {statistics.median(b):.2f} ms, "
      f"ratio {statistics.median(ratios):.2f} (range {min(ratios):.2f}-{max(ratios):.2f})")
PY
