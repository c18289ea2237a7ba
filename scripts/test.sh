#!/usr/bin/env bash
# Sets up the machine, builds with warnings treated as errors, checks that heartctl links no D-Bus, and runs every
# test (Swift Testing) one at a time (~5 min on 2 cores): several start real daemons, buses and sockets, which time
# out beside CPU-heavy tests when Swift's cooperative pool has only two threads.
#   scripts/test.sh                          # everything
#   scripts/test.sh --filter DaemonKillTests # arguments go to `swift test`
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
