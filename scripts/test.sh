#!/usr/bin/env bash
# Sets up the machine and runs every test (Swift Testing), with warnings treated as errors.
# Tests run one at a time: several start real daemons, buses and sockets, and on a 2-core machine Swift's
# cooperative thread pool has only two threads, so CPU-heavy tests running beside socket tests made the latter
# time out. Serial, the whole suite takes ~5 minutes here.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests -Xswiftc -warnings-as-errors
# heartctl links no Bluetooth and no D-Bus (docs/ARCHITECTURE.md); PackageGraphTests checks the same from the manifest.
if ldd "$(swift build --show-bin-path)/heartctl" | grep -i dbus; then
  echo "test.sh: heartctl links libdbus; it must not (see docs/ARCHITECTURE.md)" >&2
  exit 1
fi
# The capture daemon links no network stack (docs/ARCHITECTURE.md): no NIO, PostgresNIO or BoringSSL symbol in heartd;
# heartd-sync has them. PackageGraphTests checks the same from the manifest and the built binaries.
# (grep reads all of nm's output: with pipefail, an early exit would make nm's SIGPIPE hide a match.)
network=$(nm --defined-only "$(swift build --show-bin-path)/heartd" | grep -c -E 'NIOCore|PostgresNIO|BoringSSL' || true)
if [ "$network" != 0 ]; then
  echo "test.sh: heartd has $network NIO/PostgresNIO/BoringSSL symbols; it must link no network stack (docs/ARCHITECTURE.md)" >&2
  exit 1
fi
swift test --skip-build --no-parallel "$@"
