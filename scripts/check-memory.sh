#!/usr/bin/env bash
# Memory errors and leaks: `make check-memory`. Must report nothing.
#
#   scripts/check-memory.sh [all|asan|lsan-cli|valgrind]        (default: all)
#
# asan      The whole test suite (JOSE, TokenTool, Identity, Sessions with SQLite and PostgreSQL)
#           built with AddressSanitizer (+ LeakSanitizer) in its own scratch path (.build-asan).
#           LSAN_OPTIONS points at Tests/lsan.supp, which only suppresses allocations of the test
#           runner itself and one explained swift-nio false positive. The CLI tests run the
#           AddressSanitizer build of tokentool (the one beside the test bundle).
# lsan-cli  `tokentool keygen / sign / verify / decode` over every JWS algorithm, the tokentool binary
#           built with AddressSanitizer: LeakSanitizer checks each process at exit.
# valgrind  `tokentool keygen / sign / verify / decode` over every JWS algorithm under valgrind
#           memcheck (definite and indirect leaks and every memory error fail). valgrind 3.19
#           cannot read the DWARF 5 that Swift 6.3 emits, so it runs a `strip --strip-debug` copy.
#
# Environment: TOKENTOOL_CORE_ONLY (1: only JOSE and the core commands are built and tested),
# TOKENTOOL (use this tokentool binary for valgrind instead of building the core one in .build-core), CHECK_MEMORY_FILTER
# (swift test --filter for asan; default: every test), SWIFT (default swift).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SWIFT=${SWIFT:-swift}
mode=${1:-all}

say() { printf 'check-memory: %s\n' "$*" >&2; }

# unended LOG: the swift-testing tests of a `swift test` output that started and neither passed,
# failed nor were skipped.
unended() {
  awk '/ Test .* started\.$/ && !/ Test (case|run) / { sub(/^.* Test /, ""); sub(/ started\.$/, ""); open[$0] = 1 }
       / Test .* (passed|failed|skipped)/ && !/ Test case / { t = $0; sub(/^.* Test /, "", t); sub(/ (passed|failed|skipped).*$/, "", t); sub(/ with [0-9]+ test cases?$/, "", t); delete open[t] }
       END { for (t in open) print "  " t }' "$1"
}

run_asan() {
  say "AddressSanitizer/LeakSanitizer: building the tests in .build-asan"
  "$SWIFT" build --build-tests --sanitize=address --scratch-path .build-asan
  # The suites that load the machine on purpose or measure time under load (floods, stalled
  # clients, a store or provider going away, load shedding) run after the others, one test at a
  # time: beside each other and ~500 other tests on two cores under AddressSanitizer, a flood made
  # a fault test's provider miss its deadline. The others run in two processes, the server's
  # tests after the rest: all ~700 at once on two cores under AddressSanitizer left single
  # requests and store transactions waiting past 30 s. Each phase is checked for leaks at exit.
  # (Two OpenSSL leaks that showed only in one process, a thread's error queue and random
  # generators lost at its exit, are fixed in Sources/COpenSSL/thread_keys.c.)
  # Also those whose checks race a clock or an HTTP deadline (the password slots' twelve concurrent
  # logins, the sweep's grace against eight server starts): beside the server's ~250 other tests
  # they passed alone and failed in the parallel phase (2026-12-02, its run at 470 s).
  local timed='AuthServerTests\.(FaultTests|ResetFloodTests|StalledClientTests|LoadSheddingTests|PasswordFairnessTests|SweepTests)'
  local phases=()
  if [[ -n ${CHECK_MEMORY_FILTER:-} ]]; then
    phases=("--filter $CHECK_MEMORY_FILTER")
  else
    phases=("--skip AuthServerTests\." "--filter AuthServerTests\. --skip $timed" "--filter $timed --no-parallel")
  fi
  local phase
  for phase in "${phases[@]}"; do
    say "AddressSanitizer/LeakSanitizer: running ${phase}"
    # halt_on_error: the first memory error fails the run; detect_leaks: LeakSanitizer at exit.
    # shellcheck disable=SC2086 # the phase is two or three words on purpose
    # A phase that outlives its deadline (a test waiting for ever) is stopped, and the tests that
    # started and never ended are named, instead of CI waiting out its own limit.
    local log rc=0
    log=$(mktemp)
    ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0 \
    LSAN_OPTIONS=suppressions=$ROOT/Tests/lsan.supp:print_suppressions=0 \
    SWIFT_BACKTRACE=enable=no \
      timeout -k 30 "${CHECK_MEMORY_PHASE_MINUTES:-30}m" \
      "$SWIFT" test --skip-build --sanitize=address --scratch-path .build-asan $phase 2>&1 | tee "$log" || rc=$?
    if [[ $rc -ne 0 ]]; then
      if [[ $rc -eq 124 || $rc -eq 137 ]]; then
        say "the phase did not end within ${CHECK_MEMORY_PHASE_MINUTES:-30} minutes; tests that started and did not end:"
        unended "$log" >&2
      fi
      rm -f "$log"
      exit "$rc"
    fi
    rm -f "$log"
  done
  say "AddressSanitizer/LeakSanitizer: clean"
}

# cli_commands: tokentool keygen / sign / verify / decode over every JWS algorithm, accepted and
# rejected, each through the caller's `vg EXPECTED_EXIT OUTFILE ARGS...` runner, in $work.
cli_commands() {
  vg 0 /dev/null keygen --type rsa --bits 2048 --out "$work/rsa.jwk"
  vg 0 /dev/null keygen --type rsa --bits 2048 --format pem --out "$work/rsa.pem"
  vg 0 /dev/null keygen --type ec --curve P-256 --out "$work/p256.jwk"
  vg 0 /dev/null keygen --type ec --curve P-384 --format pem --out "$work/p384.pem"
  vg 0 /dev/null keygen --type ec --curve P-521 --out "$work/p521.jwk"
  vg 0 /dev/null keygen --type okp --curve Ed25519 --format pem --out "$work/ed.pem"
  vg 0 /dev/null keygen --type oct --bits 512 --out "$work/oct.jwk"
  local alg key
  for pair in HS256:oct.jwk HS384:oct.jwk HS512:oct.jwk RS256:rsa.jwk RS384:rsa.pem RS512:rsa.jwk \
              PS256:rsa.pem PS384:rsa.jwk PS512:rsa.pem ES256:p256.jwk ES384:p384.pem ES512:p521.jwk EdDSA:ed.pem; do
    alg=${pair%%:*}; key=$work/${pair#*:}
    vg 0 "$work/token" sign --key "$key" --alg "$alg" --set sub=memcheck --set n=42 --expires-in 1h
    local token
    token=$(cat "$work/token")
    vg 0 /dev/null verify --key "$key" "$token"
    vg 0 /dev/null verify --json --key "$key" --alg "$alg" "$token"
    vg 0 /dev/null decode "$token"
    vg 0 /dev/null decode --json "$token"
    # Rejections free what they allocated too: a flipped signature, then a token for another key.
    local tampered="${token%?}A"; [[ $tampered == "$token" ]] && tampered="${token%?}B"
    vg 1 /dev/null verify --key "$key" "$tampered"
  done
  vg 1 /dev/null verify --key "$work/p256.jwk" "$(cat "$work/token")"       # EdDSA token, P-256 key
  vg 0 /dev/null decode 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'            # alg none: shown, with a warning
  vg 2 /dev/null verify --key "$work/missing.pem" "$(cat "$work/token")"    # unreadable key file
}

# The tokentool binary itself, built with AddressSanitizer (by run_asan, in .build-asan), over the
# same commands: LeakSanitizer checks every process at exit.
run_lsan_cli() {
  local tool
  tool=$("$SWIFT" build --sanitize=address --scratch-path .build-asan --show-bin-path)/tokentool
  [[ -x $tool ]] || "$SWIFT" build --sanitize=address --scratch-path .build-asan --product tokentool
  local work
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  local runs=0
  vg() {
    local expected=$1 out=$2; shift 2
    local rc=0
    rm -f "$work"/asan.*
    ASAN_OPTIONS=detect_leaks=1:exitcode=99:log_path=$work/asan:detect_stack_use_after_return=0 \
    LSAN_OPTIONS=suppressions=$ROOT/Tests/lsan.supp:print_suppressions=0 \
      "$tool" "$@" >"$out" 2>"$work/stderr" || rc=$?
    runs=$((runs + 1))
    if [[ $rc -eq 99 ]] || compgen -G "$work/asan.*" >/dev/null; then
      say "AddressSanitizer/LeakSanitizer reports errors for: tokentool $*"; cat "$work"/asan.* >&2 2>/dev/null; exit 1
    fi
    if [[ $rc -ne $expected ]]; then
      say "tokentool $* exited $rc, expected $expected"; cat "$work/stderr" >&2; exit 1
    fi
  }
  say "LeakSanitizer: tokentool keygen / sign / verify / decode over every algorithm ($tool)"
  cli_commands
  say "LeakSanitizer: tokentool clean ($runs runs)"
}

run_valgrind() {
  command -v valgrind >/dev/null || { say "valgrind is not installed (apt-get install valgrind)"; exit 2; }
  local bin=${TOKENTOOL:-}
  if [[ -z $bin ]]; then
    # The core build (JOSE and the token and key commands) holds every command run below, and builds
    # in a minute without the network, database and server dependencies.
    say "valgrind: building the core tokentool (TOKENTOOL_CORE_ONLY=1, .build-core)"
    TOKENTOOL_CORE_ONLY=1 "$SWIFT" build --product tokentool --scratch-path .build-core
    bin=$(TOKENTOOL_CORE_ONLY=1 "$SWIFT" build --product tokentool --scratch-path .build-core --show-bin-path)/tokentool
  fi
  local work
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  cp "$bin" "$work/tokentool"
  strip --strip-debug "$work/tokentool"
  local tool=$work/tokentool
  local -a vg=(valgrind -q --error-exitcode=99 --suppressions="$ROOT/Tests/valgrind.supp" --leak-check=full --show-leak-kinds=definite,indirect
               --errors-for-leak-kinds=definite,indirect --num-callers=30)
  local runs=0

  # vg EXPECTED_EXIT OUTFILE ARGS...: runs tokentool under valgrind; fails on any valgrind error
  # (exit 99) or an unexpected exit code.
  vg() {
    local expected=$1 out=$2; shift 2
    local rc=0
    "${vg[@]}" --log-file="$work/vg.log" "$tool" "$@" >"$out" 2>"$work/stderr" || rc=$?
    runs=$((runs + 1))
    if [[ $rc -eq 99 || -s $work/vg.log ]]; then
      say "valgrind reports errors for: tokentool $*"; cat "$work/vg.log" >&2; exit 1
    fi
    if [[ $rc -ne $expected ]]; then
      say "tokentool $* exited $rc, expected $expected"; cat "$work/stderr" >&2; exit 1
    fi
  }

  # 1. The library, through a synchronous driver (Tests/Fuzz/Valgrind): every algorithm, then a
  #    replay of the fuzz seeds. Built without sanitizers, debug info stripped.
  say "valgrind: building the JOSE driver (Tests/Fuzz/Valgrind)"
  mkdir -p .build-valgrind
  mapfile -t sources < <(find Sources/JOSE -name '*.swift' | sort)
  swiftc -parse-as-library -swift-version 6 -module-name JOSE -enable-testing -Onone -g \
    -I Sources/COpenSSL/include -I Sources/CJansson \
    -emit-module -emit-module-path .build-valgrind/JOSE.swiftmodule \
    -emit-library -static -o .build-valgrind/libJOSE.a "${sources[@]}"
  # COpenSSL's one C file (the load-time constructor that orders OpenSSL's per-thread keys).
  "$(dirname "$(command -v swiftc)")/clang" -O0 -g -I Sources/COpenSSL/include -c Sources/COpenSSL/thread_keys.c \
    -o .build-valgrind/thread_keys.o
  swiftc -parse-as-library -swift-version 6 -module-name ValgrindDriver -Onone -g \
    -I Sources/COpenSSL/include -I Sources/CJansson -I .build-valgrind \
    Tests/Fuzz/Shared/*.swift Tests/Fuzz/Valgrind/ValgrindDriver.swift .build-valgrind/libJOSE.a .build-valgrind/thread_keys.o \
    -lcrypto -ljansson -o .build-valgrind/valgrind-driver
  cp .build-valgrind/valgrind-driver "$work/driver"
  strip --strip-debug "$work/driver"
  local rc=0
  "${vg[@]}" --log-file="$work/vg.log" "$work/driver" $(find TestVectors/fuzz -type f ! -name '*.py' ! -name '*.dict' | sort) \
    >"$work/driver.out" 2>&1 || rc=$?
  if [[ $rc -ne 0 || -s $work/vg.log ]]; then
    say "valgrind reports errors in the JOSE driver (exit $rc)"; cat "$work/vg.log" "$work/driver.out" >&2; exit 1
  fi
  say "valgrind: driver clean: $(cat "$work/driver.out")"

  # 2. The tokentool commands themselves. decode, verify (local keys), sign, keygen, jwk and jwks
  #    run synchronously on the main thread: valgrind 3.19 crashes (internal SIGSEGV) once a
  #    Swift 6.3 async main suspends, so these commands must not.
  say "valgrind: keygen / sign / verify / decode over every algorithm (${bin})"
  cli_commands
  say "valgrind: clean ($runs runs)"
}

case $mode in
  all) run_asan; run_lsan_cli; run_valgrind ;;
  asan) run_asan; run_lsan_cli ;;
  lsan-cli) run_lsan_cli ;;
  valgrind) run_valgrind ;;
  *) sed -n '2,17p' "$0" >&2; exit 2 ;;
esac
