#!/usr/bin/env bash
# Splits release binaries as they are installed: OUT_DIR/<name> stripped, naming OUT_DIR/<name>.debug (its DWARF
# and symbol tables, objcopy --only-keep-debug, compressed) in its .gnu_debuglink with a checksum, where gdb finds it once
# installed under /usr/lib/debug. scripts/install.sh uses it (or installs a directory it already split:
# BUILD_DIR with <name>.debug beside <name>); scripts/sdlab-test.sh splits on the host, where it takes seconds
# instead of minutes under the lab's emulated CPU. A split newer than its binary is kept.
#   scripts/split-debug.sh OUT_DIR BINARY...
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/split-debug.sh OUT_DIR BINARY..." >&2; exit 2; }
out=$1; shift
mkdir -p "$out"
for binary in "$@"; do
  name=$(basename "$binary")
  if [ "$out/$name" -nt "$binary" ] && [ "$out/$name.debug" -nt "$binary" ]; then continue; fi
  # Compressed (zlib, which gdb reads): 81 MB of heartd-web's DWARF becomes 45 MB to copy and keep.
  objcopy --only-keep-debug --compress-debug-sections=zlib "$binary" "$out/$name.debug"
  # objcopy reads the .debug file for its checksum and records only its name; the installed copy is that file.
  objcopy --strip-all --add-gnu-debuglink="$out/$name.debug" "$binary" "$out/$name"
done
