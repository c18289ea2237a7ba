#!/usr/bin/env bash
# Installs the system packages heartd needs to build, test and run (Debian/Ubuntu). Idempotent.
set -euo pipefail
PKGS=(libdbus-1-dev libsqlite3-dev pkg-config dbus-daemon python3-dbus python3-gi python3-dbusmock sqlite3 libxml2-utils
      btrfs-progs xfsprogs e2fsprogs   # the full-disk tests loop-mount each (DaemonDiskFullTests)
      postgresql   # the sync tests start their own PostgreSQL (initdb + pg_ctl in a temp dir; never the system cluster)
      chromium     # HeartctlReportTests read `heartctl report`'s HTML in a headless browser (--dump-dom)
      chromium-driver python3-pip   # WebTests drive the room page in Chromium through Selenium
      mosquitto mosquitto-clients   # the MQTT tests start their own mosquitto (temp dir, loopback ports, TLS by openssl)
      dbus-bin   # dbus-send: MQTTBridgeTests' ForgottenSensorTests drive the fake BlueZ with it
      openssl)
missing=()
for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Selenium from PyPI for WebTests' browser script (Debian's Python is externally managed: PEP 668).
if ! python3 -c 'import selenium' >/dev/null 2>&1; then
  python3 -m pip install -q selenium 2>/dev/null || python3 -m pip install -q --break-system-packages selenium
fi
# scripts/bench-web.sh drives Chromium from Debian's /usr/bin/python3 (it also needs python3-dbus for the fake BlueZ).
if [ "$(command -v python3)" != /usr/bin/python3 ] && ! /usr/bin/python3 -c 'import selenium' >/dev/null 2>&1; then
  /usr/bin/python3 -m pip install -q selenium 2>/dev/null || /usr/bin/python3 -m pip install -q --break-system-packages selenium
fi
# FITExportTests read `heartctl export --format fit` with Garmin's FIT SDK and fitdecode (scripts/fit_check.py).
if ! python3 -c "import garmin_fit_sdk, fitdecode" >/dev/null 2>&1; then
  python3 -m pip install -q garmin-fit-sdk fitdecode 2>/dev/null \
    || python3 -m pip install -q --break-system-packages garmin-fit-sdk fitdecode
fi
command -v swift >/dev/null || { echo "setup: swift (6.0 or later) is not on PATH" >&2; exit 1; }
