#!/usr/bin/env bash
# Installs heartd from a release build: binaries (stripped; their debug info beside them), systemd units,
# sysusers/tmpfiles entries, an example configuration (never overwriting one that exists), docs, and optionally
# the udev rule.
#
#   scripts/build-release.sh && sudo scripts/install.sh [--enable] [--udev-rule]
#   scripts/install.sh --dry-run                  # print what would happen
#   DESTDIR=/tmp/stage scripts/install.sh         # stage into a directory (no systemctl calls)
#
# Environment: PREFIX (default /usr/local), SYSCONFDIR (default /etc), DESTDIR (default empty),
# BUILD_DIR (default .build-static/release, where scripts/build-release.sh builds; or a folder scripts/split-debug.sh
# wrote, installed as it is),
# DEBUGDIR (default /usr/lib/debug, where gdb looks for the debug info of $PREFIX/bin/heartd: $DEBUGDIR$PREFIX/bin).
set -euo pipefail
cd "$(dirname "$0")/.."

PREFIX="${PREFIX:-/usr/local}"
SYSCONFDIR="${SYSCONFDIR:-/etc}"
DESTDIR="${DESTDIR:-}"
BUILD_DIR="${BUILD_DIR:-.build-static/release}"
DRY_RUN=0 ENABLE=0 UDEV_RULE=0

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=1 ;;
    --enable) ENABLE=1 ;;
    --udev-rule) UDEV_RULE=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown option $arg" >&2; usage >&2; exit 2 ;;
  esac
done

BINDIR="$PREFIX/bin"
DEBUGDIR="${DEBUGDIR:-/usr/lib/debug}"
UNITDIR="$SYSCONFDIR/systemd/system"
SYSUSERSDIR="$SYSCONFDIR/sysusers.d"
TMPFILESDIR="$SYSCONFDIR/tmpfiles.d"
UDEVDIR="$SYSCONFDIR/udev/rules.d"
CONFDIR="$SYSCONFDIR/heartd"
DOCDIR="$PREFIX/share/doc/heartd"
# journald reads catalogs from /usr/lib/systemd/catalog and /usr/local/lib/systemd/catalog.
CATALOGDIR="$PREFIX/lib/systemd/catalog"

run() {
  if [ "$DRY_RUN" -eq 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi
}

# install_file MODE SOURCE DEST
install_file() {
  run install -D -m "$1" "$2" "$DESTDIR$3"
}

# heartd captures (no network stack); heartd-sync delivers to the central PostgreSQL; heartd-web serves the live
# pages (docs/WEB.md); heartd-mqtt publishes the live sensors to MQTT (docs/MQTT.md); heartctl is the client.
binaries=(heartd heartctl heartd-sync heartd-web heartd-mqtt)
for binary in "${binaries[@]}"; do
  if [ ! -x "$BUILD_DIR/$binary" ]; then
    if [ "$DRY_RUN" -eq 1 ]; then
      echo "# note: $BUILD_DIR/$binary not built yet (scripts/build-release.sh)"
    else
      echo "install.sh: $BUILD_DIR/$binary missing; run scripts/build-release.sh first" >&2
      exit 1
    fi
  fi
done

# Stripped: a release binary is ~160 MB with its DWARF and symbol tables, ~76 MB without; the kernel maps and
# reads the file, and a smaller one installs, copies and pages in for less. The debug info goes beside it,
# $DEBUGDIR$BINDIR/<binary>.debug (objcopy --only-keep-debug), and the stripped binary names it in its
# .gnu_debuglink with a checksum, where gdb finds it (its default debug-file-directory is /usr/lib/debug).
gen_tmp="$(mktemp -d)"
unit_tmp="$(mktemp)"
trap 'rm -f "$unit_tmp"; rm -rf "$gen_tmp"' EXIT
# A BUILD_DIR that scripts/split-debug.sh wrote (<binary>.debug beside <binary>) is installed as it is.
split_dir=$gen_tmp
if [ -e "$BUILD_DIR/heartd.debug" ]; then split_dir=$BUILD_DIR; fi
for binary in "${binaries[@]}"; do
  if [ "$split_dir" = "$gen_tmp" ]; then run scripts/split-debug.sh "$gen_tmp" "$BUILD_DIR/$binary"; fi
  install_file 0755 "$split_dir/$binary" "$BINDIR/$binary"
  install_file 0644 "$split_dir/$binary.debug" "$DEBUGDIR$BINDIR/$binary.debug"
done

# The units name /usr/local/bin/heartd and /usr/local/bin/heartd-sync; rewrite them for another PREFIX.
sed -e "s|/usr/local/bin/heartd|$BINDIR/heartd|" \
    -e "s|/etc/heartd/heartd.toml|$CONFDIR/heartd.toml|" \
    -e "s|file:///usr/local/share/doc/heartd|file://$DOCDIR|" systemd/heartd.service > "$unit_tmp"
install_file 0644 "$unit_tmp" "$UNITDIR/heartd.service"
# heartd-sync.service (central PostgreSQL, docs/CENTRAL.md): installed, never enabled here; it needs [sync].
sed -e "s|/usr/local/bin/heartd|$BINDIR/heartd|" \
    -e "s|/etc/heartd/|$CONFDIR/|g" \
    -e "s|file:///usr/local/share/doc/heartd|file://$DOCDIR|" systemd/heartd-sync.service > "$unit_tmp"
install_file 0644 "$unit_tmp" "$UNITDIR/heartd-sync.service"
# heartd-web.service (live pages, docs/WEB.md): installed, never enabled here.
sed -e "s|/usr/local/bin/heartd|$BINDIR/heartd|" \
    -e "s|/etc/heartd/|$CONFDIR/|g" \
    -e "s|file:///usr/local/share/doc/heartd|file://$DOCDIR|" systemd/heartd-web.service > "$unit_tmp"
install_file 0644 "$unit_tmp" "$UNITDIR/heartd-web.service"
# heartd-mqtt.service (MQTT and Home Assistant, docs/MQTT.md): installed, never enabled here; it needs [mqtt].
sed -e "s|/usr/local/bin/heartd|$BINDIR/heartd|" \
    -e "s|/etc/heartd/|$CONFDIR/|g" \
    -e "s|file:///usr/local/share/doc/heartd|file://$DOCDIR|" systemd/heartd-mqtt.service > "$unit_tmp"
install_file 0644 "$unit_tmp" "$UNITDIR/heartd-mqtt.service"
install_file 0644 systemd/heartd.sysusers "$SYSUSERSDIR/heartd.conf"
install_file 0644 systemd/heartd.tmpfiles "$TMPFILESDIR/heartd.conf"
install_file 0644 systemd/heartd.catalog "$CATALOGDIR/heartd.catalog"
if [ "$UDEV_RULE" -eq 1 ]; then install_file 0644 udev/90-heartd.rules "$UDEVDIR/90-heartd.rules"; fi

if [ -e "$DESTDIR$CONFDIR/heartd.toml" ]; then
  echo "# keeping existing $DESTDIR$CONFDIR/heartd.toml"
else
  install_file 0644 systemd/heartd.toml.example "$CONFDIR/heartd.toml"
fi
install_file 0644 systemd/heartd.toml.example "$DOCDIR/heartd.toml.example"
install_file 0644 docs/CONFIGURATION.md "$DOCDIR/CONFIGURATION.md"
install_file 0644 docs/CENTRAL.md "$DOCDIR/CENTRAL.md"
install_file 0644 docs/WEB.md "$DOCDIR/WEB.md"
install_file 0644 docs/MQTT.md "$DOCDIR/MQTT.md"
install_file 0644 udev/README.md "$DOCDIR/udev.md"
install_file 0644 docs/CONTROL.md "$DOCDIR/CONTROL.md"

# Man pages and bash/zsh/fish completions, generated from the binaries' own command trees (scripts/gen-manuals.sh),
# or as a BUILD_DIR already holds them (heartctl.1 beside heartctl: scripts/sdlab-test.sh generates them on the host).
MANDIR="$PREFIX/share/man"
manuals_dir=$BUILD_DIR
if [ ! -e "$BUILD_DIR/heartctl.1" ]; then
  manuals_dir=$gen_tmp
  scripts/gen-manuals.sh "$gen_tmp" "$BUILD_DIR"
fi
for spec in heartctl:1 heartd:8 heartd-sync:8 heartd-web:8 heartd-mqtt:8; do
  binary="${spec%%:*}" section="${spec##*:}"
  [ -e "$manuals_dir/$binary.$section" ] || continue
  install_file 0644 "$manuals_dir/$binary.$section" "$MANDIR/man$section/$binary.$section"
  install_file 0644 "$manuals_dir/$binary.bash" "$PREFIX/share/bash-completion/completions/$binary"
  install_file 0644 "$manuals_dir/$binary.zsh" "$PREFIX/share/zsh/site-functions/_$binary"
  install_file 0644 "$manuals_dir/$binary.fish" "$PREFIX/share/fish/vendor_completions.d/$binary.fish"
done

# Activate on a live system only (not when staging into DESTDIR).
if [ -z "$DESTDIR" ]; then
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ] || [ "$DRY_RUN" -eq 1 ]; then
    run systemd-sysusers "$SYSUSERSDIR/heartd.conf"
    run systemd-tmpfiles --create "$TMPFILESDIR/heartd.conf"
    run systemctl daemon-reload
    # Index the message catalog so `journalctl -x` explains heartd's MESSAGE_IDs.
    run journalctl --update-catalog
    if [ "$UDEV_RULE" -eq 1 ]; then run udevadm control --reload; fi
    if [ "$ENABLE" -eq 1 ]; then run systemctl enable --now heartd.service; fi
  else
    echo "# systemd is not running here: skipped sysusers, tmpfiles and daemon-reload"
  fi
fi

if [ "$ENABLE" -eq 0 ]; then
  echo "# installed. Start with: systemctl enable --now heartd.service"
  echo "# users in group 'heartd' may use heartctl: usermod -aG heartd \$USER"
fi
