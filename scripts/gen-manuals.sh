#!/usr/bin/env bash
# Writes the man pages and bash/zsh/fish completions of heartd's programs, generated from each binary's own command
# tree (swift-argument-parser), into OUT_DIR: <name>.<section>, <name>.bash, <name>.zsh, <name>.fish.
# scripts/install.sh runs it (or installs a BUILD_DIR that already holds them); scripts/sdlab-test.sh runs it on the
# host, where it takes seconds instead of a minute of python and binary starts under the lab's emulated CPU.
# A binary that cannot describe itself (--experimental-dump-help) gets none, with a note.
#   scripts/gen-manuals.sh OUT_DIR BUILD_DIR
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/gen-manuals.sh OUT_DIR BUILD_DIR" >&2; exit 2; }
out=$1 build=$2
cd "$(dirname "$0")/.."
mkdir -p "$out"
for spec in heartctl:1 heartd:8 heartd-sync:8 heartd-web:8 heartd-mqtt:8; do
  binary="${spec%%:*}" section="${spec##*:}"
  if ! "$build/$binary" --experimental-dump-help 2>/dev/null | python3 -c 'import json, sys; json.load(sys.stdin)' 2>/dev/null; then
    echo "# $build/$binary cannot describe itself: skipped its man page and completions"
    continue
  fi
  scripts/gen-man.py "$build/$binary" "$section" > "$out/$binary.$section"
  for shell in bash zsh fish; do
    "$build/$binary" --generate-completion-script "$shell" > "$out/$binary.$shell"
  done
done
