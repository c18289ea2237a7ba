#!/usr/bin/env bash
# Removes what scripts/install.sh installed. Keeps the configuration (/etc/heartd and any drop-ins in
# heartd.service.d/, heartd-sync.service.d/, heartd-web.service.d/ or heartd-mqtt.service.d/), the database (/var/lib/heartd), the sync state (/var/lib/heartd-sync)
# and the heartd user unless --purge is given.
#
#   sudo scripts/uninstall.sh [--purge]
#   scripts/uninstall.sh --dry-run
#   DESTDIR=/tmp/stage scripts/uninstall.sh
#
# Environment: PREFIX (default /usr/local), SYSCONFDIR (default /etc), DESTDIR (default empty),
# DEBUGDIR (default /usr/lib/debug: the binaries' debug info, as scripts/install.sh put it).
set -euo pipefail

PREFIX="${PREFIX:-/usr/local}"
DEBUGDIR="${DEBUGDIR:-/usr/lib/debug}"
SYSCONFDIR="${SYSCONFDIR:-/etc}"
DESTDIR="${DESTDIR:-}"
DRY_RUN=0 PURGE=0

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=1 ;;
    --purge) PURGE=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "uninstall.sh: unknown option $arg" >&2; usage >&2; exit 2 ;;
  esac
done

run() {
  if [ "$DRY_RUN" -eq 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi
}

live=0
if [ -z "$DESTDIR" ] && { [ -d /run/systemd/system ] || [ "$DRY_RUN" -eq 1 ]; }; then live=1; fi

if [ "$live" -eq 1 ]; then
  run systemctl disable --now heartd-mqtt.service heartd-web.service heartd-sync.service heartd.service || true
fi

for file in \
  "$PREFIX/bin/heartd" "$PREFIX/bin/heartctl" "$PREFIX/bin/heartd-sync" "$PREFIX/bin/heartd-web" "$PREFIX/bin/heartd-mqtt" \
  "$DEBUGDIR$PREFIX/bin/heartd.debug" "$DEBUGDIR$PREFIX/bin/heartctl.debug" "$DEBUGDIR$PREFIX/bin/heartd-sync.debug" "$DEBUGDIR$PREFIX/bin/heartd-web.debug" "$DEBUGDIR$PREFIX/bin/heartd-mqtt.debug" \
  "$SYSCONFDIR/systemd/system/heartd.service" "$SYSCONFDIR/systemd/system/heartd-sync.service" "$SYSCONFDIR/systemd/system/heartd-web.service" "$SYSCONFDIR/systemd/system/heartd-mqtt.service" \
  "$SYSCONFDIR/sysusers.d/heartd.conf" "$SYSCONFDIR/tmpfiles.d/heartd.conf" \
  "$SYSCONFDIR/udev/rules.d/90-heartd.rules" "$PREFIX/lib/systemd/catalog/heartd.catalog" \
  "$PREFIX/share/doc/heartd/heartd.toml.example" "$PREFIX/share/doc/heartd/CONFIGURATION.md" \
  "$PREFIX/share/doc/heartd/udev.md" "$PREFIX/share/doc/heartd/CONTROL.md" "$PREFIX/share/doc/heartd/CENTRAL.md" "$PREFIX/share/doc/heartd/WEB.md" "$PREFIX/share/doc/heartd/MQTT.md" \
  "$PREFIX/share/man/man1/heartctl.1" "$PREFIX/share/man/man8/heartd.8" "$PREFIX/share/man/man8/heartd-sync.8" "$PREFIX/share/man/man8/heartd-web.8" "$PREFIX/share/man/man8/heartd-mqtt.8" \
  "$PREFIX/share/bash-completion/completions/heartctl" "$PREFIX/share/bash-completion/completions/heartd" \
  "$PREFIX/share/bash-completion/completions/heartd-sync" "$PREFIX/share/bash-completion/completions/heartd-web" \
  "$PREFIX/share/bash-completion/completions/heartd-mqtt" \
  "$PREFIX/share/zsh/site-functions/_heartctl" "$PREFIX/share/zsh/site-functions/_heartd" \
  "$PREFIX/share/zsh/site-functions/_heartd-sync" "$PREFIX/share/zsh/site-functions/_heartd-web" \
  "$PREFIX/share/zsh/site-functions/_heartd-mqtt" \
  "$PREFIX/share/fish/vendor_completions.d/heartctl.fish" "$PREFIX/share/fish/vendor_completions.d/heartd.fish" \
  "$PREFIX/share/fish/vendor_completions.d/heartd-sync.fish" "$PREFIX/share/fish/vendor_completions.d/heartd-web.fish" \
  "$PREFIX/share/fish/vendor_completions.d/heartd-mqtt.fish"; do
  if [ -e "$DESTDIR$file" ] || [ "$DRY_RUN" -eq 1 ]; then run rm -f "$DESTDIR$file"; fi
done
# The debug info's directories ($DEBUGDIR$PREFIX/bin and its parents) where now empty; never $DEBUGDIR itself.
dir="$PREFIX/bin"
while [ "$dir" != / ] && [ "$dir" != . ]; do
  if [ -d "$DESTDIR$DEBUGDIR$dir" ] || [ "$DRY_RUN" -eq 1 ]; then run rmdir --ignore-fail-on-non-empty "$DESTDIR$DEBUGDIR$dir"; fi
  dir=$(dirname "$dir")
done
if [ -d "$DESTDIR$PREFIX/share/doc/heartd" ] || [ "$DRY_RUN" -eq 1 ]; then run rmdir --ignore-fail-on-non-empty "$DESTDIR$PREFIX/share/doc/heartd"; fi

if [ "$PURGE" -eq 1 ]; then
  # The configuration (with sync-password) and both units' state (StateDirectory=heartd, heartd-sync).
  run rm -rf "$DESTDIR$SYSCONFDIR/heartd" "$DESTDIR/var/lib/heartd" "$DESTDIR/var/lib/heartd-sync"
  # Drop-ins of every unit: `systemctl edit` (system/), `systemctl set-property` (system.control/), and their
  # --runtime forms (heartd-web's credentials are added as one).
  for unit in heartd.service heartd-sync.service heartd-web.service heartd-mqtt.service; do
    for dropins in "$SYSCONFDIR/systemd/system/$unit.d" "$SYSCONFDIR/systemd/system.control/$unit.d" \
                   "/run/systemd/system/$unit.d" "/run/systemd/system.control/$unit.d"; do
      if [ -e "$DESTDIR$dropins" ] || [ "$DRY_RUN" -eq 1 ]; then run rm -rf "$DESTDIR$dropins"; fi
    done
  done
  if [ "$live" -eq 1 ]; then
    if getent passwd heartd >/dev/null 2>&1 || [ "$DRY_RUN" -eq 1 ]; then run userdel heartd || true; fi
    if getent group heartd >/dev/null 2>&1 || [ "$DRY_RUN" -eq 1 ]; then run groupdel heartd || true; fi
  fi
else
  echo "# kept $SYSCONFDIR/heartd, /var/lib/heartd, /var/lib/heartd-sync, the units' drop-ins and the heartd user (use --purge to remove)"
fi

if [ "$live" -eq 1 ]; then
  run systemctl daemon-reload
  run journalctl --update-catalog || true
  if [ -e /etc/udev/rules.d ] || [ "$DRY_RUN" -eq 1 ]; then run udevadm control --reload || true; fi
fi
