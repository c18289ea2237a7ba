#!/usr/bin/env bash
# Installs the system packages heartd needs to build, test and run (Debian/Ubuntu). Idempotent.
set -euo pipefail
PKGS=(libdbus-1-dev libsqlite3-dev pkg-config dbus-daemon python3-dbus python3-gi python3-dbusmock sqlite3 libxml2-utils
      btrfs-progs xfsprogs e2fsprogs   # the full-disk tests loop-mount each (DaemonDiskFullTests)
      postgresql   # the sync tests start their own PostgreSQL (initdb + pg_ctl in a temp dir; never the system cluster)
      chromium)    # HeartctlReportTests read `heartctl report`'s HTML in a headless browser (--dump-dom)
missing=()
for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# FITExportTests read `heartctl export --format fit` with Garmin's FIT SDK and fitdecode (scripts/fit_check.py).
if command -v python3 >/dev/null && ! python3 -c "import garmin_fit_sdk, fitdecode" 2>/dev/null; then
  python3 -m pip install -q garmin-fit-sdk fitdecode >/dev/null 2>&1 || echo "setup: pip install garmin-fit-sdk fitdecode failed" >&2
fi
command -v swift >/dev/null || { echo "setup: swift (6.0 or later) is not on PATH" >&2; exit 1; }
