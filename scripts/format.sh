#!/usr/bin/env bash
# Applies the repository's formatting (.swift-format) to the Swift sources, or checks it.
#
#   scripts/format.sh            rewrite Sources/, Tests/ and Package.swift in place
#   scripts/format.sh --check    change nothing; list each finding and exit 1 if there is one
#
# The formatter is swift-format as the Swift toolchain ships it (`swift format`); SWIFT names
# another `swift` driver. The Swift examples of docs/ are regions of tests: DocsTests compares
# them with runs of spaces collapsed, so the formatter's spacing never breaks a page, but a
# line break it adds inside a region must be made in the page too.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
paths=(Sources Tests Package.swift)
case "${1:-}" in
    "")
        exec "$swift" format --configuration .swift-format --in-place --recursive --parallel "${paths[@]}" ;;
    --check)
        exec "$swift" format lint --configuration .swift-format --strict --recursive --parallel "${paths[@]}" ;;
    *)
        echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac
