#!/usr/bin/env bash
# The release build heartd ships as: heartd and heartctl with the Swift runtime and Foundation linked statically
# (--static-swift-stdlib) into .build-static/release; prints that directory. The system's libdbus, libsqlite3 and
# libsystemd stay shared. Why (docs/BENCHMARKS.md, "Memory"): the static daemon keeps resident only the pages it
# touches of the Swift libraries, instead of each shared library's loaded, relocated and faulted-around pages
# (~5–7 MB less), and runs where no Swift runtime is installed (the lab's Debian 12 guests: scripts/lab-test.sh and
# scripts/sdlab-test.sh share this build). --no-export-dynamic: the Swift driver exports every symbol of an
# executable (41,000 here), so the loader resolved each relocation by symbol lookup through 3.6 MB of symbol
# tables at every start (~2 MB resident); nothing looks symbols up in heartd. A first build takes 10–45 min
# (BoringSSL, NIO and GRDB optimised), then only what changed.
#   scripts/build-release.sh                  # heartd and heartctl
#   scripts/build-release.sh heartd           # only these products
set -euo pipefail
cd "$(dirname "$0")/.."
products=("$@")
[ ${#products[@]} -gt 0 ] || products=(heartd heartctl)
for product in "${products[@]}"; do
  swift build -c release --static-swift-stdlib -Xlinker --no-export-dynamic --scratch-path .build-static \
    --product "$product" >&2
done
echo "$(pwd)/.build-static/release"
