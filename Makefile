# TokenTool: two entry points for a fresh Debian machine (see README):
#   make demo   installs what is missing, builds, and runs the walkthrough
#   make test   installs what is missing and runs every test
SHELL := /bin/bash
SWIFT ?= swift
APT_PACKAGES := libssl-dev libjansson-dev pkg-config openssl postgresql valgrind python3-pip
BIN := .build/debug/tokentool

.PHONY: deps demo test build

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	@python3 -c 'import joserfc' 2>/dev/null || python3 -m pip install -q --disable-pip-version-check joserfc \
	  || python3 -m pip install -q --disable-pip-version-check --break-system-packages joserfc

build: deps
	$(SWIFT) build

demo: build
	@scripts/demo.sh $(BIN)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
