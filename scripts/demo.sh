#!/usr/bin/env bash
# The walkthrough behind `make demo`; filled in as commands land.
set -euo pipefail
BIN=${1:-.build/debug/tokentool}
"$BIN" --help
