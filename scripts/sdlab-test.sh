#!/usr/bin/env bash
# heartd as a user installs it, under a real systemd: boots ../shared/sdlab (Debian 12, systemd 252, bluetoothd
# 5.66, two virtual LE controllers, a heart-rate peripheral) with this checkout at /src and static binaries built
# here at /host, and runs scripts/sdlab/<scenario>.sh as root in it. The scenario asserts each step and writes
# summary.txt; the journal of the whole boot is kept in the output folder.
#   scripts/sdlab-test.sh                  # the user scenario (install → capture → watchdog → sync → uninstall), ~3.5 min
#   SDLAB=/path/to/shared/sdlab scripts/sdlab-test.sh
# Exit: the scenario's status (0 = every step passed), 2 when the lab is missing or misused.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SDLAB=${SDLAB:-$ROOT/../shared/sdlab}
[ -x "$SDLAB/run.sh" ] || { echo "sdlab-test: no systemd lab at $SDLAB (set SDLAB=)" >&2; exit 2; }
SCENARIO=${1:-user}
[ -f "scripts/sdlab/$SCENARIO.sh" ] || { echo "sdlab-test: no scenario scripts/sdlab/$SCENARIO.sh" >&2; exit 2; }
export HRLAB_DIR=${HRLAB_DIR:-$HOME/.cache/hrlab}
scripts/setup.sh
command -v mmdebstrap >/dev/null && command -v mkfs.ext4 >/dev/null && command -v qemu-system-x86_64 >/dev/null || {
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends mmdebstrap e2fsprogs qemu-system-x86 >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends mmdebstrap e2fsprogs qemu-system-x86 >/dev/null; }
}
# The lab's image plus Debian's postgresql (for heartd-sync.service, scripts/sdlab/sync.sh), built by the project's
# copy of the lab's build script into its own cache folder (<cache>/hrlab/pg/sd, where run.sh looks with this
# HRLAB_DIR); rebuilt only when its inputs change.
export HRLAB_DIR=$HRLAB_DIR/pg
SDLAB="$SDLAB" scripts/sdlab/build-image.sh >&2

# The shipped static build (the guest has Debian 12's libdbus and libsqlite3 but no Swift runtime), shared with
# scripts/lab-test.sh.
# Every program: install.sh installs them all (heartd-web and heartd-mqtt are installed, never enabled).
RELEASE=$(scripts/build-release.sh heartd heartctl heartd-sync heartd-web heartd-mqtt)
BIN=$(mktemp -d /tmp/heartd-sdlab-bin.XXXXXX)
OUT=$(mktemp -d /tmp/heartd-sdlab-out.XXXXXX)
trap 'rm -rf "$BIN"' EXIT
# Split here as install.sh would (stripped, with .debug beside): the emulated CPU took ~2.5 min to do it in the guest.
scripts/split-debug.sh "$BIN" "$RELEASE/heartd" "$RELEASE/heartctl" "$RELEASE/heartd-sync" "$RELEASE/heartd-web" \
  "$RELEASE/heartd-mqtt"
# The man pages and completions too (python and 20 binary starts took about a minute under the emulated CPU).
scripts/gen-manuals.sh "$BIN" "$RELEASE" >/dev/null

# 2 notifications/s with one RR each at 120 bpm, as scripts/lab-test.sh.
set +e
"$SDLAB/run.sh" -o "$OUT" -H "$BIN" -S "$ROOT" -t "${SDLAB_LIMIT:-600}" \
  -e PERIPH_OPTS="--rate 2 --rr 1 --energy 100 --bpm 120 --battery 77" \
  "scripts/sdlab/$SCENARIO.sh" > "$OUT/run.log" 2>&1
rc=$?
set -e
tail -4 "$OUT/run.log"
echo "--- scripts/sdlab/$SCENARIO.sh: steps"
cat "$OUT/summary.txt" 2>/dev/null || echo "(no summary.txt: the scenario did not run; see $OUT/console.log)"
if [ "$rc" != 0 ]; then
  echo "sdlab-test: FAILED (rc $rc); output in $OUT (scenario.log, journal.txt, console.log)" >&2
  grep -h '^FAIL' "$OUT/scenario.log" 2>/dev/null | head -20 >&2 || true
  exit 1
fi
echo "sdlab-test: passed; output in $OUT"
