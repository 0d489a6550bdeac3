#!/usr/bin/env bash
# Builds and runs the libFuzzer targets over the JOSE and Identity modules.
#
#   scripts/fuzz.sh TARGET [SECONDS]     TARGET: token | jwk | pem | claims | provider | cbor | all   (default SECONDS: 600)
#   scripts/fuzz.sh build                only build the targets
#   scripts/fuzz.sh list                 print the target names
#
# Each target is the JOSE sources (built once, with -enable-testing) plus one entry file from
# Tests/Fuzz/, compiled by swiftc with -sanitize=fuzzer,address: libFuzzer provides main(), the
# entry is @_cdecl("LLVMFuzzerTestOneInput"). The provider and cbor targets also link the Identity sources
# (built the same way), all but HTTP/AsyncHTTPClientTransport.swift: its HTTP transport is scripted
# by the fuzz input. Seeds come from TestVectors/fuzz/TARGET/ plus the
# matching files elsewhere in TestVectors/; new inputs found go to .build-fuzz/corpus/TARGET
# (not committed). A crash, leak, timeout or broken invariant stops the run, leaves the input in
# fuzz-out/ and makes this script exit 1: turn it into a test in Tests/JOSETests/HostileInputTests.swift
# (provider: Tests/IdentityTests/HostileResponseTests.swift).
#
# Environment: SWIFTC (default swiftc), FUZZ_JOBS (parallel workers per target, default 1),
# FUZZ_OPT (default -O), FUZZ_ARGS (extra libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(token jwk pem claims provider cbor)
SWIFTC=${SWIFTC:-swiftc}
OUT=.build-fuzz
OPT=${FUZZ_OPT:--O}
ARTIFACTS=fuzz-out

usage() { sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

entry_file() {
  case $1 in
    token) echo Tests/Fuzz/FuzzToken.swift ;;
    jwk) echo Tests/Fuzz/FuzzJWK.swift ;;
    pem) echo Tests/Fuzz/FuzzPEM.swift ;;
    claims) echo Tests/Fuzz/FuzzClaims.swift ;;
    provider) echo Tests/Fuzz/FuzzProvider.swift ;;
    cbor) echo Tests/Fuzz/FuzzCBOR.swift ;;
    *) echo "unknown fuzz target: $1 (expected one of: ${TARGETS[*]})" >&2; exit 2 ;;
  esac
}

CFLAGS=(-I Sources/COpenSSL/include -I Sources/CJansson)
CLANG=${CLANG:-$(dirname "$(command -v "$SWIFTC")")/clang}
SANITIZE=(-sanitize=fuzzer,address)
LINK=(-use-ld=lld)

# newer_than OUT FILES...: true when OUT is missing or older than any of FILES.
stale() {
  local out=$1; shift
  [[ ! -e $out ]] && return 0
  local f
  for f in "$@"; do [[ $f -nt $out ]] && return 0; done
  return 1
}

build_jose() {
  mkdir -p "$OUT"
  mapfile -t sources < <(find Sources/JOSE -name '*.swift' | sort)
  if stale "$OUT/libJOSE.a" "${sources[@]}" "$0"; then
    echo "fuzz: building JOSE with ${SANITIZE[*]} $OPT" >&2
    "$SWIFTC" -parse-as-library -swift-version 6 -module-name JOSE -enable-testing "$OPT" -g \
      "${SANITIZE[@]}" "${CFLAGS[@]}" \
      -emit-module -emit-module-path "$OUT/JOSE.swiftmodule" \
      -emit-library -static -o "$OUT/libJOSE.a" "${sources[@]}"
  fi
}

# COpenSSL's one C file (its load-time constructor orders OpenSSL's per-thread keys; JOSE calls it).
build_copenssl() {
  mkdir -p "$OUT"
  if stale "$OUT/thread_keys.o" Sources/COpenSSL/thread_keys.c Sources/COpenSSL/include/shim.h "$0"; then
    echo "fuzz: building COpenSSL's thread_keys.c" >&2
    "$CLANG" -fsanitize=fuzzer-no-link,address -O1 -g -I Sources/COpenSSL/include -c Sources/COpenSSL/thread_keys.c -o "$OUT/thread_keys.o"
  fi
}

# Identity without AsyncHTTPClientTransport.swift (the only file importing AsyncHTTPClient).
build_identity() {
  build_jose
  mapfile -t sources < <(find Sources/Identity -name '*.swift' ! -name AsyncHTTPClientTransport.swift | sort)
  if stale "$OUT/libIdentity.a" "${sources[@]}" "$OUT/libJOSE.a" "$0"; then
    echo "fuzz: building Identity with ${SANITIZE[*]} $OPT" >&2
    "$SWIFTC" -parse-as-library -swift-version 6 -module-name Identity -enable-testing "$OPT" -g \
      "${SANITIZE[@]}" "${CFLAGS[@]}" -I "$OUT" \
      -emit-module -emit-module-path "$OUT/Identity.swiftmodule" \
      -emit-library -static -o "$OUT/libIdentity.a" "${sources[@]}"
  fi
}

build_target() {
  local t=$1 entry
  entry=$(entry_file "$t")
  build_jose
  build_copenssl
  local -a libs=("$OUT/libJOSE.a" "$OUT/thread_keys.o")
  if [[ $t == provider || $t == cbor ]]; then build_identity; libs=("$OUT/libIdentity.a" "$OUT/libJOSE.a" "$OUT/thread_keys.o"); fi
  mapfile -t shared < <(find Tests/Fuzz/Shared -name '*.swift' | sort)
  if stale "$OUT/fuzz-$t" "$entry" "${shared[@]}" "${libs[@]}"; then
    echo "fuzz: building target $t" >&2
    "$SWIFTC" -parse-as-library -swift-version 6 -module-name "Fuzz_$t" "$OPT" -g \
      "${SANITIZE[@]}" "${CFLAGS[@]}" -I "$OUT" \
      "${LINK[@]}" "$entry" "${shared[@]}" "${libs[@]}" -lcrypto -ljansson -o "$OUT/fuzz-$t"
  fi
}

# Seed directories for a target: its own seeds plus matching vectors from other helpers' folders.
seed_dirs() {
  local t=$1 d
  local -a dirs=("TestVectors/fuzz/$t")
  case $t in
    token) dirs+=(TestVectors/jose-cookbook/jws) ;;
    jwk) dirs+=(TestVectors/jose-cookbook/jwk TestVectors/realworld) ;;
    pem) dirs+=(TestVectors/pem) ;;
    claims | provider | cbor) ;;
  esac
  # Every folder named above exists (FuzzSeedTests checks it): a renamed folder is not skipped silently.
  for d in "${dirs[@]}"; do [[ -d $d ]] && echo "$d"; done
  return 0
}

run_target() {
  local t=$1 seconds=$2
  build_target "$t"
  local corpus="$OUT/corpus/$t"
  mkdir -p "$corpus" "$ARTIFACTS"
  local -a seeds
  mapfile -t seeds < <(seed_dirs "$t")
  local -a args=(
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384
    -print_final_stats=1 -artifact_prefix="$ARTIFACTS/$t-"
  )
  local dict=TestVectors/fuzz/jose.dict
  [[ -f TestVectors/fuzz/$t.dict ]] && dict=TestVectors/fuzz/$t.dict
  [[ -f $dict ]] && args+=(-dict="$dict")
  if [[ ${FUZZ_JOBS:-1} -gt 1 ]]; then args+=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS"); fi
  # shellcheck disable=SC2206
  args+=(${FUZZ_ARGS:-})
  echo "fuzz: $t for ${seconds}s (seeds: ${seeds[*]:-none})" >&2
  # detect_leaks: a leaked EVP_PKEY or json_t fails the run like a crash.
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
    "$OUT/fuzz-$t" "${args[@]}" "$corpus" "${seeds[@]}"
}

[[ $# -ge 1 ]] || usage
case $1 in
  list) printf '%s\n' "${TARGETS[@]}" ;;
  build) for t in "${TARGETS[@]}"; do build_target "$t"; done ;;
  all) for t in "${TARGETS[@]}"; do run_target "$t" "${2:-600}"; done ;;
  -h|--help) usage ;;
  *) run_target "$1" "${2:-600}" ;;
esac
