#!/usr/bin/env bash
# Checks scripts/install.sh and scripts/uninstall.sh by staging into a temporary DESTDIR with
# stand-in binaries (small C programs with debug info, so that the stripping is real). Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/build"
printf '#include <stdio.h>\nint main(void) { puts(NAME); return 0; }\n' > "$tmp/standin.c"
for b in heartd heartctl heartd-sync heartd-web heartd-mqtt; do "${CC:-cc}" -g -DNAME="\"$b\"" -o "$tmp/build/$b" "$tmp/standin.c"; done
stage="$tmp/stage"
passed=0 failed=0
check() { if eval "$2"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1" >&2; fi; }

DESTDIR="$stage" BUILD_DIR="$tmp/build" PREFIX=/opt/hd scripts/install.sh --udev-rule >/dev/null
check "binaries installed" '[ -x "$stage/opt/hd/bin/heartd" ] && [ -x "$stage/opt/hd/bin/heartctl" ] && [ -x "$stage/opt/hd/bin/heartd-sync" ]'
check "installed binaries run" '[ "$("$stage/opt/hd/bin/heartd-sync")" = heartd-sync ]'
# Stripped, the debug info beside them under /usr/lib/debug, named by the binary's .gnu_debuglink.
has_section() { readelf -S -W "$1" 2>/dev/null | grep -q " $2 "; }
for b in heartd heartctl heartd-sync heartd-web heartd-mqtt; do
  check "$b stripped" '! has_section "$stage/opt/hd/bin/$b" .debug_info && ! has_section "$stage/opt/hd/bin/$b" .symtab'
  check "$b debug info beside it" 'has_section "$stage/usr/lib/debug/opt/hd/bin/$b.debug" .debug_info'
  check "$b names its debug file" 'readelf -p .gnu_debuglink "$stage/opt/hd/bin/$b" | grep -q "$b.debug"'
done
check "unit installed with PREFIX path" 'grep -q "^ExecStart=/opt/hd/bin/heartd --config /etc/heartd/heartd.toml$" "$stage/etc/systemd/system/heartd.service"'
check "sync unit runs heartd-sync" 'grep -q "^ExecStart=/opt/hd/bin/heartd-sync --config /etc/heartd/heartd.toml$" "$stage/etc/systemd/system/heartd-sync.service"'
check "web unit runs heartd-web" 'grep -q "^ExecStart=/opt/hd/bin/heartd-web --config /etc/heartd/heartd.toml$" "$stage/etc/systemd/system/heartd-web.service"'
check "mqtt unit runs heartd-mqtt" 'grep -q "^ExecStart=/opt/hd/bin/heartd-mqtt" "$stage/etc/systemd/system/heartd-mqtt.service"'
check "sysusers installed" '[ -f "$stage/etc/sysusers.d/heartd.conf" ]'
check "tmpfiles installed" '[ -f "$stage/etc/tmpfiles.d/heartd.conf" ]'
check "udev rule installed on request" '[ -f "$stage/etc/udev/rules.d/90-heartd.rules" ]'
check "example config installed" 'cmp -s systemd/heartd.toml.example "$stage/etc/heartd/heartd.toml"'
check "docs installed" '[ -f "$stage/opt/hd/share/doc/heartd/CONFIGURATION.md" ]'
check "journal catalog installed" 'cmp -s systemd/heartd.catalog "$stage/opt/hd/lib/systemd/catalog/heartd.catalog"'

echo "# mine" > "$stage/etc/heartd/heartd.toml"
DESTDIR="$stage" BUILD_DIR="$tmp/build" PREFIX=/opt/hd scripts/install.sh >/dev/null
check "existing config kept" '[ "$(cat "$stage/etc/heartd/heartd.toml")" = "# mine" ]'

check "missing build refused" '! DESTDIR="$stage" BUILD_DIR="$tmp/none" scripts/install.sh >/dev/null 2>&1'
check "dry run changes nothing" 'DESTDIR="$tmp/dry" BUILD_DIR="$tmp/build" scripts/install.sh --dry-run >/dev/null && [ ! -e "$tmp/dry" ]'
check "dry run shows the stripping" 'BUILD_DIR="$tmp/build" scripts/install.sh --dry-run | grep "^+ scripts/split-debug.sh .* $tmp/build/heartd-sync$" >/dev/null'
# A build split beforehand (scripts/sdlab-test.sh does it on the host) installs the same files, split once.
scripts/split-debug.sh "$tmp/split" "$tmp/build"/*
DESTDIR="$tmp/stage-split" BUILD_DIR="$tmp/split" PREFIX=/opt/hd scripts/install.sh --udev-rule >/dev/null
check "a split build installs the same binaries and debug files" 'diff -r "$stage/opt/hd/bin" "$tmp/stage-split/opt/hd/bin" && diff -r "$stage/usr/lib/debug" "$tmp/stage-split/usr/lib/debug"'
check "a split build is not split again" '! BUILD_DIR="$tmp/split" scripts/install.sh --dry-run | grep -q split-debug.sh'
# Man pages and completions generated beforehand (scripts/sdlab-test.sh, scripts/gen-manuals.sh) install as they are.
for b in heartctl.1 heartd.8 heartd-sync.8 heartd-web.8 heartd-mqtt.8; do echo ".TH prebuilt-$b" > "$tmp/split/$b"; done
for b in heartctl heartd heartd-sync heartd-web heartd-mqtt; do for sh in bash zsh fish; do echo "# prebuilt $b" > "$tmp/split/$b.$sh"; done; done
DESTDIR="$tmp/stage-manuals" BUILD_DIR="$tmp/split" PREFIX=/opt/hd scripts/install.sh >/dev/null
check "prebuilt man pages and completions are installed as they are" 'grep -q "prebuilt-heartctl.1" "$tmp/stage-manuals/opt/hd/share/man/man1/heartctl.1" && grep -q "prebuilt heartd-web" "$tmp/stage-manuals/opt/hd/share/bash-completion/completions/heartd-web" && grep -q "prebuilt heartd" "$tmp/stage-manuals/opt/hd/share/zsh/site-functions/_heartd" && grep -q "prebuilt heartd-mqtt" "$tmp/stage-manuals/opt/hd/share/fish/vendor_completions.d/heartd-mqtt.fish"'

# A user's drop-ins, as `systemctl edit heartd` and `systemctl set-property heartd` write them.
mkdir -p "$stage/etc/systemd/system/heartd.service.d" "$stage/etc/systemd/system.control/heartd.service.d" \
  "$stage/etc/systemd/system/heartd-sync.service.d"
echo "[Service]" > "$stage/etc/systemd/system/heartd.service.d/override.conf"
echo "[Service]" > "$stage/etc/systemd/system.control/heartd.service.d/50-CPUQuota.conf"
echo "[Service]" > "$stage/etc/systemd/system/heartd-sync.service.d/override.conf"
# heartd-web's credentials come as a drop-in (docs/WEB.md, "Security").
mkdir -p "$stage/etc/systemd/system/heartd-web.service.d"
echo "[Service]" > "$stage/etc/systemd/system/heartd-web.service.d/override.conf"
# The state both units leave (StateDirectory=heartd, StateDirectory=heartd-sync).
mkdir -p "$stage/var/lib/heartd" "$stage/var/lib/heartd-sync"
echo "{}" > "$stage/var/lib/heartd-sync/state.json"
DESTDIR="$stage" PREFIX=/opt/hd scripts/uninstall.sh >/dev/null
check "uninstall removes files" '[ ! -e "$stage/opt/hd/bin/heartd" ] && [ ! -e "$stage/etc/systemd/system/heartd.service" ] && [ ! -e "$stage/etc/udev/rules.d/90-heartd.rules" ]'
check "uninstall removes heartd-sync and the debug info" '[ ! -e "$stage/opt/hd/bin/heartd-sync" ] && [ ! -e "$stage/usr/lib/debug/opt/hd/bin" ]'
check "uninstall removes the catalog" '[ ! -e "$stage/opt/hd/lib/systemd/catalog/heartd.catalog" ]'
check "uninstall keeps config" '[ -f "$stage/etc/heartd/heartd.toml" ]'
check "uninstall keeps drop-ins" '[ -f "$stage/etc/systemd/system/heartd.service.d/override.conf" ]'
DESTDIR="$stage" PREFIX=/opt/hd scripts/uninstall.sh --purge >/dev/null
check "purge removes config" '[ ! -e "$stage/etc/heartd" ]'
check "purge removes drop-ins" '[ ! -e "$stage/etc/systemd/system/heartd.service.d" ] && [ ! -e "$stage/etc/systemd/system.control/heartd.service.d" ]'
check "purge removes heartd-sync's drop-ins" '[ ! -e "$stage/etc/systemd/system/heartd-sync.service.d" ]'
check "purge removes heartd-web's drop-ins" '[ ! -e "$stage/etc/systemd/system/heartd-web.service.d" ]'
check "purge removes both units' state" '[ ! -e "$stage/var/lib/heartd" ] && [ ! -e "$stage/var/lib/heartd-sync" ]'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
