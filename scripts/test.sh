#!/usr/bin/env bash
# Sets up the machine and runs every test (Swift Testing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build --parallel "$@"
