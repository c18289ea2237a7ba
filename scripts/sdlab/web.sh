# sdlab scenario "user", step 9 (sourced by user.sh, after sync.sh): heartd-web.service as docs/WEB.md sets it up,
# beside a capturing heartd: the viewer token through LoadCredential= only (a drop-in) (401 without it, the live sensor with it,
# the room page served), a clean stop, the exposure no worse than heartd-sync's, no denial or error line, and the
# token in no journal entry and on no command line.
WEB_BOUND=30 WEB_STOP_BOUND=5
web_unit() { systemctl show -p "$1" --value heartd-web.service; }
# http PATH [TOKEN]: prints the status code, then the body, of http://127.0.0.1:8380/PATH.
http() {
  python3 - "$@" <<'PY'
import sys, urllib.request, urllib.error
req = urllib.request.Request("http://127.0.0.1:8380" + sys.argv[1])
if len(sys.argv) > 2: req.add_header("Authorization", "Bearer " + sys.argv[2])
try:
    with urllib.request.urlopen(req, timeout=5) as r: print(r.status); print(r.read().decode())
except urllib.error.HTTPError as e: print(e.code)
except OSError as e: print("000"); print(e)
PY
}
TOKEN=$(tr -dc 'A-Za-z0-9' < /dev/urandom | head -c 32)
install -m 0600 /dev/stdin /etc/heartd/web-viewer-token <<< "$TOKEN"
# As docs/WEB.md says: the credential added by a drop-in (what `systemctl edit heartd-web` writes).
mkdir -p /etc/systemd/system/heartd-web.service.d
printf '[Service]\nLoadCredential=web-viewer-token:/etc/heartd/web-viewer-token\n' > /etc/systemd/system/heartd-web.service.d/override.conf
systemctl daemon-reload
systemctl start heartd
if wait_until "$CAPTURE_BOUND" streaming; then pass web-capture "heartd started again and streaming"
else fail web-capture "heartd not streaming again within ${CAPTURE_BOUND} s"; fi
t=$(now)
systemctl start heartd-web.service > /out/web-start.log 2>&1
check web-start "systemctl start heartd-web: active, its credential in /run/credentials/heartd-web.service/web-viewer-token" \
  sh -c '[ "$(systemctl is-active heartd-web)" = active ] && [ -s /run/credentials/heartd-web.service/web-viewer-token ]'
# Live: the sensor heartd captures, streaming with a heart rate, through the unit's sandbox and heartd's socket.
web_live() { http /api/devices "$TOKEN" > /out/web-devices.txt && [ "$(head -1 /out/web-devices.txt)" = 200 ] &&
             tail -n +2 /out/web-devices.txt | json "any(d['state'] == 'streaming' and d.get('bpm') for d in j)" | grep -qx True; }
if wait_until "$WEB_BOUND" web_live; then
  pass web-live "GET /api/devices with the viewer token: the sensor streaming with its heart rate ($(since "$t") s after start)"
else fail web-live "no streaming sensor from /api/devices within ${WEB_BOUND} s: $(head -c 300 /out/web-devices.txt)"; fi
web_refused() { [ "$(http /api/devices | head -1)" = 401 ]; }
check web-auth "without the token: 401 (the credential from LoadCredential= is in force)" web_refused
web_room() { http "/?token=$TOKEN" > /out/web-room.html && [ "$(head -1 /out/web-room.html)" = 200 ] && grep -q /assets/room.js /out/web-room.html; }
check web-room "the room page (/?token=…) is served: 200, with the room's script" web_room
pid=$(web_unit MainPID)
tr '\0' ' ' < "/proc/$pid/cmdline" > /out/web-cmdline.txt 2>/dev/null
t=$(now); systemctl stop heartd-web; stop_s=$(since "$t")
check web-stop "systemctl stop heartd-web within ${WEB_STOP_BOUND} s (${stop_s} s), Result=$(web_unit Result)" \
  sh -c "awk -v s=$stop_s -v b=$WEB_STOP_BOUND 'BEGIN { exit !(s <= b) }' && [ \"\$(systemctl show -p Result --value heartd-web)\" = success ]"
systemctl stop heartd
journalctl -b -o export --no-pager > /out/journal-export.bin 2>/dev/null
systemctl show heartd-web.service > /out/web-show.txt 2>&1
check web-secret "the viewer token is in no journal entry, on the command line ($(cat /out/web-cmdline.txt)) or in the unit's properties" \
  secret_absent "$TOKEN" /out/journal-export.bin /out/web-cmdline.txt /out/web-show.txt
rm -f /out/journal-export.bin
systemd-analyze security heartd-web --no-pager > /out/security-web.txt 2>&1
web_exposure=$(sed -n 's/.*Overall exposure level for heartd-web.service: \([0-9.]*\).*/\1/p' /out/security-web.txt)
check web-security "systemd-analyze security heartd-web: ${web_exposure:-?} (bound: heartd-sync's, ${SYNC_EXPOSURE_BOUND})" \
  le "${web_exposure:-9}" "$SYNC_EXPOSURE_BOUND"
python3 /src/scripts/sdlab/journal_check.py denials --unit heartd-web.service > /out/journal-denials-web.txt 2>&1
rc=$?
check web-journal-clean "no denial or error line from heartd-web: $(head -1 /out/journal-denials-web.txt)" test $rc = 0
