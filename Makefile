# TokenTool: two entry points for a fresh Debian machine (see README):
#   make demo   installs what is missing, builds, and runs the walkthrough (scripts/demo.sh)
#   make test   installs what is missing and runs every test
# Run as root: missing packages are installed with apt-get. Swift itself is preinstalled at /opt/swift.
# TOKENTOOL_CORE_ONLY=1 (in the environment) builds only JOSE and the token/key commands.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
SWIFT ?= swift
# openssl (the command line) and python3 joserfc are the independent implementations the interop tests use;
# curl and jq run the server examples of docs/server.md and the demo; chromium and chromium-driver
# (with PyPI selenium) the browser test of the hosted account pages; oathtool (with PyPI pyotp) the
# TOTP tests' independent one-time passwords.
APT_PACKAGES := libssl-dev libjansson-dev pkg-config openssl postgresql valgrind python3-pip curl jq \
	chromium chromium-driver oathtool
# joserfc: the interop tests' independent JOSE; authlib: a real OAuth 2.0 client against tokentool serve;
# selenium drives Chromium through the hosted confirm and reset pages; openapi_spec_validator and
# schemathesis check the server's OpenAPI document and the server against it; oidc_provider_mock (PyPI
# oidc-provider-mock) is the real upstream provider of the web sign-in test.
PY_PACKAGES := joserfc authlib requests selenium openapi_spec_validator schemathesis pyotp oidc_provider_mock
# soft-webauthn (a software authenticator) and webauthn (py_webauthn) make and check the passkey
# vectors (TestVectors/webauthn/) and run passkeys-test. soft-webauthn needs fido2 1.x, which needs a
# cryptography older than joserfc's, so these two live in a virtual environment of their own.
WEBAUTHN_VENV := .build-py
BIN := .build/debug/tokentool
# Sets $$bin to the AddressSanitizer tokentool that `make test` built (building it when missing), for the
# tests that run the server as a process.
ASAN_TOKENTOOL = bin=$$($(SWIFT) build --sanitize=address --scratch-path .build-asan --show-bin-path)/tokentool; \
	[ -x "$$bin" ] || $(SWIFT) build --sanitize=address --scratch-path .build-asan --product tokentool

# The release tokentool (docs/performance.md, "Start-up"), built so that the loader has little to
# do before main: the Swift runtime and libraries linked in (--static-swift-stdlib), libstdc++ too
# (the linker script in $(STATIC_CXX) points -lstdc++ at the archive), a position-dependent
# executable (no ~74,000 relocations of Swift metadata at load), and no exported symbols (the
# runtime's flags export every package symbol: 42,000 in the full build).
STATIC_CXX := $(CURDIR)/.build-static-cxx
RELEASE_FLAGS := -c release --static-swift-stdlib -Xswiftc -Xclang-linker -Xswiftc -no-pie \
	-Xlinker --no-export-dynamic -Xlinker -L$(STATIC_CXX)

.PHONY: deps build release release-smoke demo test bench bench-server fuzz fuzz-smoke check-memory browser-test openapi-test format \
	websignin-test passkeys-test oidc-test

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	@for m in $(PY_PACKAGES); do python3 -c "import $$m" 2>/dev/null && continue; echo "installing: $$m (PyPI)"; \
	  python3 -m pip install -q --disable-pip-version-check $$m 2>/dev/null || \
	  python3 -m pip install -q --disable-pip-version-check --break-system-packages $$m; done
	@$(WEBAUTHN_VENV)/bin/python -c "import soft_webauthn, webauthn" 2>/dev/null || { echo "installing: soft-webauthn webauthn (PyPI, in $(WEBAUTHN_VENV))"; \
	  python3 -m venv $(WEBAUTHN_VENV) && $(WEBAUTHN_VENV)/bin/pip install -q --disable-pip-version-check soft-webauthn webauthn; }
	@scripts/oidc/deps.sh  # Apache with Debian's mod_auth_openidc (its service kept from starting), for oidc-test

build: deps
	$(SWIFT) build

# .build/release/tokentool; TOKENTOOL_CORE_ONLY=1 for the token and key commands alone.
release: deps $(STATIC_CXX)
	$(SWIFT) build $(RELEASE_FLAGS) --product tokentool

$(STATIC_CXX):
	@mkdir -p $@; a=$$(clang -print-file-name=libstdc++.a); \
	if [ -f "$$a" ]; then echo "INPUT($$a)" > $@/libstdc++.so; \
	else echo "note: no libstdc++.a (libstdc++-12-dev); the release tokentool will load libstdc++.so"; fi

# The release link flags on the core build: it must still sign, verify, refuse and decode.
release-smoke: deps $(STATIC_CXX)
	RELEASE_FLAGS="$(RELEASE_FLAGS)" SWIFT="$(SWIFT)" scripts/release-smoke.sh

demo: build
	@scripts/demo.sh $(BIN)

# The whole suite runs once, built with AddressSanitizer/LeakSanitizer (scripts/check-memory.sh asan):
# one build of the package instead of a plain one and a sanitizer one. CI=1: the PostgreSQL half of the
# store and server suites fails (not skips) when PostgreSQL is missing. Then three lanes side by side
# (make -j3, each lane's output printed whole when it ends), of about equal length (minutes on a
# clean clone here, 2026-12-06, each lane alone: valgrind 6.7; the pages 1.8 and the fuzz targets
# 3.5; the protocol suites 3.8 and the release link 0.8): valgrind over the core tokentool (its own
# scratch path; one core); the pages in Chromium, then the fuzz targets; the protocol suites
# against the server as a process (OpenAPI, web sign-in, passkeys, relying parties), then the
# release link. The pages and protocol suites mostly wait on processes and sockets; the
# load-sensitive Swift suites have ended by then. Each part says how long it took.
test: deps
	@scripts/ensure-postgres.sh
	@scripts/timed.sh "Swift suites (AddressSanitizer)" env CI=1 scripts/check-memory.sh asan
	@$(MAKE) --no-print-directory -j3 --output-sync=target test-valgrind test-pages test-protocols

.PHONY: test-valgrind test-pages test-protocols
test-valgrind:
	@scripts/timed.sh valgrind scripts/check-memory.sh valgrind
test-pages:
	@scripts/timed.sh browser-test $(MAKE) --no-print-directory browser-test
	@scripts/timed.sh fuzz-smoke $(MAKE) --no-print-directory fuzz-smoke
test-protocols:
	@scripts/timed.sh openapi-test $(MAKE) --no-print-directory openapi-test
	@scripts/timed.sh websignin-test $(MAKE) --no-print-directory websignin-test
	@scripts/timed.sh passkeys-test $(MAKE) --no-print-directory passkeys-test
	@scripts/timed.sh oidc-test $(MAKE) --no-print-directory oidc-test
	@scripts/timed.sh release-smoke $(MAKE) --no-print-directory release-smoke

# Benchmarks (see docs/performance.md): a release build of the core, then every algorithm beside raw OpenSSL.
bench: deps $(STATIC_CXX)
	TOKENTOOL_CORE_ONLY=1 $(SWIFT) build $(RELEASE_FLAGS) --product tokentool
	.build/release/tokentool bench

# tokentool serve under wrk on loopback, each row beside its floor from the same run (scripts/bench-server.sh,
# docs/performance.md "The server"): SQLite and a throwaway PostgreSQL, 1 and 2 instances; the table on stdout.
# BENCH_SERVER_ARGS passes options: --quick, --repeat 3, --overload, --soak 600, --seconds S, --connections C.
bench-server: deps $(STATIC_CXX)
	@command -v wrk >/dev/null || { echo "installing: wrk"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
	@scripts/ensure-postgres.sh
	$(SWIFT) build $(RELEASE_FLAGS) --product tokentool
	$(SWIFT) build $(RELEASE_FLAGS) --product bench-floor
	scripts/bench-server.sh $(BENCH_SERVER_ARGS)

# libFuzzer over the JOSE module (scripts/fuzz.sh; crashes land in fuzz-out/). FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 600
fuzz: deps
	scripts/fuzz.sh all $(FUZZ_SECONDS)

# A few seconds per fuzz target, so CI notices a regression.
fuzz-smoke: deps
	scripts/fuzz.sh all 10

# The whole test suite under AddressSanitizer/LeakSanitizer, and tokentool keygen/sign/verify/
# decode over every algorithm under LeakSanitizer and under valgrind: all must report nothing.
check-memory: deps
	scripts/check-memory.sh

# The hosted confirm and reset pages (Tests/Browser/pages_test.py), the OpenID Provider's login and
# consent pages (Tests/Browser/oidc_test.py) and their passkey buttons with Chromium's WebAuthn and
# WebDriver's virtual authenticator (Tests/Browser/passkey_test.py, SQLite and a throwaway PostgreSQL),
# pages on other origins calling the server as realm-web and a single-page app do (Tests/Browser/cors_test.py),
# and login CSRF of web sign-in, the attacker's provider answers opened in the victim's Chromium (Tests/Browser/login_csrf_test.py)
# in headless Chromium, against the tokentool that `make test` built (the AddressSanitizer one; leaks
# are the suite's to find, not this UI test's). A screenshot of each state lands in browser-out/.
browser-test: deps
	@if [ "$$TOKENTOOL_CORE_ONLY" = 1 ]; then echo "browser-test: skipped (the core-only build has no server)"; exit 0; fi; \
	$(ASAN_TOKENTOOL); \
	ASAN_OPTIONS=detect_leaks=0 python3 Tests/Browser/pages_test.py "$$bin" browser-out && \
	ASAN_OPTIONS=detect_leaks=0 python3 Tests/Browser/oidc_test.py "$$bin" browser-out && \
	ASAN_OPTIONS=detect_leaks=0 python3 Tests/Browser/passkey_test.py "$$bin" browser-out && \
	ASAN_OPTIONS=detect_leaks=0 python3 Tests/Browser/cors_test.py "$$bin" browser-out && \
	ASAN_OPTIONS=detect_leaks=0 python3 Tests/Browser/login_csrf_test.py "$$bin" browser-out

# The server's OpenAPI document (GET /openapi.json) against the server itself (Tests/OpenAPI/check_openapi.py):
# openapi-spec-validator checks the document, then schemathesis runs from it against a live tokentool serve on
# 127.0.0.1 (the AddressSanitizer build, as browser-test), bounded: OPENAPI_CHECK_EXAMPLES cases per operation
# and phase (default 25), OPENAPI_CHECK_SECONDS in all (default 150). No 5xx, every answer as documented. The
# document, the server's log and a JUnit report land in openapi-out/.
openapi-test: deps
	@if [ "$$TOKENTOOL_CORE_ONLY" = 1 ]; then echo "openapi-test: skipped (the core-only build has no server)"; exit 0; fi; \
	$(ASAN_TOKENTOOL); \
	ASAN_OPTIONS=detect_leaks=0 python3 Tests/OpenAPI/check_openapi.py "$$bin" openapi-out

# Web sign-in through the App Services redirect flow with PyPI oidc-provider-mock as the upstream "Google"
# (Tests/WebSignIn/upstream_test.py, PyPI requests as the browser), against the tokentool that `make test`
# built (the AddressSanitizer one, as browser-test), on SQLite and a throwaway PostgreSQL.
websignin-test: deps
	@if [ "$$TOKENTOOL_CORE_ONLY" = 1 ]; then echo "websignin-test: skipped (the core-only build has no server)"; exit 0; fi; \
	$(ASAN_TOKENTOOL); \
	ASAN_OPTIONS=detect_leaks=0 python3 Tests/WebSignIn/upstream_test.py "$$bin"

# Passkeys end to end over HTTP (Tests/Passkeys/passkeys_test.py): PyPI soft-webauthn as the browser's
# authenticator and PyPI webauthn (py_webauthn) as an independent relying party that must accept each ceremony
# the server accepts; registration, passkey sign-in, the passkey as a second factor, deletion, and the refusals
# one by one (a replayed or misdirected assertion, another origin, a tampered signature, a cloned authenticator,
# garbage CBOR, another user's passkey, no user verification where it is required); on SQLite and a throwaway
# PostgreSQL, against the tokentool that `make test` built (the AddressSanitizer one), in the venv of deps.
passkeys-test: deps
	@if [ "$$TOKENTOOL_CORE_ONLY" = 1 ]; then echo "passkeys-test: skipped (the core-only build has no server)"; exit 0; fi; \
	$(ASAN_TOKENTOOL); \
	ASAN_OPTIONS=detect_leaks=0 $(WEBAUTHN_VENV)/bin/python Tests/Passkeys/passkeys_test.py "$$bin"

# OpenID Connect relying parties nobody here wrote against tokentool serve (Tests/OIDC/rp_test.py): PyPI
# authlib (PKCE, its id_token validation, userinfo) and Apache with Debian's mod_auth_openidc protecting a
# page, through the hosted login page, plus the refusals one by one; on SQLite and a throwaway PostgreSQL,
# against the tokentool that `make test` built (the AddressSanitizer one). The server logs land in oidc-out/.
oidc-test: deps
	@if [ "$$TOKENTOOL_CORE_ONLY" = 1 ]; then echo "oidc-test: skipped (the core-only build has no server)"; exit 0; fi; \
	$(ASAN_TOKENTOOL); \
	ASAN_OPTIONS=detect_leaks=0 python3 Tests/OIDC/rp_test.py "$$bin" oidc-out

# Applies .swift-format to Sources/, Tests/ and Package.swift (`scripts/format.sh --check` only reports).
format:
	SWIFT=$(SWIFT) scripts/format.sh
