#!/usr/bin/env bash
# Installs the system packages heartd needs to build, test and run (Debian/Ubuntu). Idempotent.
set -euo pipefail
PKGS=(libdbus-1-dev libsqlite3-dev pkg-config dbus-daemon python3-dbus python3-gi python3-dbusmock sqlite3 libxml2-utils
      btrfs-progs xfsprogs e2fsprogs   # the full-disk tests loop-mount each (DaemonDiskFullTests)
      postgresql   # the sync tests start their own PostgreSQL (initdb + pg_ctl in a temp dir; never the system cluster)
      mosquitto mosquitto-clients   # the MQTT tests start their own mosquitto (temp dir, loopback ports, TLS by openssl)
      openssl
      chromium)    # HeartctlReportTests read `heartctl report`'s HTML in a headless browser (--dump-dom)
missing=()
for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "setup: swift (6.0 or later) is not on PATH" >&2; exit 1; }
