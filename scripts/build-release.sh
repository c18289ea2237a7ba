#!/usr/bin/env bash
# The release build heartd ships as: heartd, heartctl, heartd-sync, heartd-web and heartd-mqtt with the Swift runtime and Foundation linked
# statically (--static-swift-stdlib) into .build-static/release; prints that directory. Unstripped: scripts/install.sh
# strips them and keeps their debug info beside them. The system's libdbus, libsqlite3 and
# libsystemd stay shared. Why (docs/BENCHMARKS.md, "Memory"): the static daemon keeps resident only the pages it
# touches of the Swift libraries, instead of each shared library's loaded, relocated and faulted-around pages
# (~5–7 MB less), and runs where no Swift runtime is installed (the lab's Debian 12 guests: scripts/lab-test.sh and
# scripts/sdlab-test.sh share this build). --no-export-dynamic: the Swift driver exports every symbol of an
# executable (41,000 here), so the loader resolved each relocation by symbol lookup through 3.6 MB of symbol
# tables at every start (~2 MB resident); nothing looks symbols up in heartd. Linked by the toolchain's lld with
# packed relative relocations (-z pack-relative-relocs, DT_RELR) where the C library loads them (glibc >= 2.36):
# the ~125,000 relative relocations of a position-independent heartd then take a few KB instead of a 2.9 MB
# table that every start reads (~3 MB less resident, ASLR kept). The linker is given as a SwiftPM toolset, which
# touches only the link step. Elsewhere (an older glibc, no ld.lld) the default link is used, and the binary
# runs as before.
# A first build takes 10–45 min (BoringSSL, NIO and GRDB optimised), then only what changed.
#   RELR=0 scripts/build-release.sh           # the default link (no lld, no packed relocations)
#   scripts/build-release.sh                  # heartd, heartctl, heartd-sync, heartd-web and heartd-mqtt
#   scripts/build-release.sh heartd           # only these products
set -euo pipefail
cd "$(dirname "$0")/.."
products=("$@")
[ ${#products[@]} -gt 0 ] || products=(heartd heartctl heartd-sync heartd-web heartd-mqtt)
# glibc learnt DT_RELR in 2.36; an executable with it does not start on an older one ("GLIBC_ABI_DT_RELR not found").
relr_supported() {
  local lld=$1 version
  [ -x "$lld" ] || return 1
  version=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  [ -n "$version" ] && [ "$(printf '%s\n2.36\n' "$version" | sort -V | head -n1)" = 2.36 ]
}
toolset=()
lld=$(dirname "$(readlink -f "$(command -v swiftc)")")/ld.lld
if [ "${RELR:-1}" != 0 ] && relr_supported "$lld"; then
  mkdir -p .build-static
  printf '{"schemaVersion": "1.0", "linker": {"path": "%s", "extraCLIOptions": ["-z", "pack-relative-relocs"]}}\n' \
    "$lld" > .build-static/relr-toolset.json
  toolset=(--toolset "$(pwd)/.build-static/relr-toolset.json")
fi
for product in "${products[@]}"; do
  swift build -c release --static-swift-stdlib -Xlinker --no-export-dynamic --scratch-path .build-static \
    "${toolset[@]}" --product "$product" >&2
  # A toolset the build ignored would silently ship the 2.9 MB relocation table again.
  if [ ${#toolset[@]} -gt 0 ] && ! readelf -d ".build-static/release/$product" | grep -q '(RELR)'; then
    echo "build-release: .build-static/release/$product has no packed relocations (DT_RELR) though $lld was given" >&2
    exit 1
  fi
done
echo "$(pwd)/.build-static/release"
