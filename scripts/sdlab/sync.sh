# sdlab scenario "user", step 8 (sourced by user.sh, after heartd was stopped): heartd-sync.service as the README's
# "Setting it up" does it, against a real PostgreSQL on the guest's loopback (the image from
# scripts/sdlab/build-image.sh has Debian's postgresql): the credential through LoadCredential= only, delivery of
# every stored sample (psql count == the store's) while heartd captures and after it stops, a clean stop, the
# sandbox (network yes, Bluetooth no, the store read-only: probed with the unit's own sandbox lines), the
# exposure, no denial or error line, and the password in no journal entry and on no command line.
SYNC_BOUND=60 SYNC_STOP_BOUND=5 SYNC_EXPOSURE_BOUND=1.4
if ! command -v pg_ctlcluster >/dev/null; then
  skip sync "no PostgreSQL in this guest image (scripts/sdlab-test.sh boots the one scripts/sdlab/build-image.sh makes)"
  return 0
fi
sync_unit() { systemctl show -p "$1" --value heartd-sync.service; }
central() { runuser -u postgres -- psql -d heart -tAc "$1" 2>/dev/null; }
stored_count() { heartctl --db /var/lib/heartd/heartd.sqlite series --from 2000-01-01 --to 2100-01-01 --limit 1000000 --json |
                   json "len([s for s in j['samples'] if not s.get('open')])"; }
delivered() { [ "$(central 'SELECT count(*) FROM samples')" = "$(stored_count)" ]; }
store_hash() { (cd /var/lib/heartd && sha256sum heartd.sqlite* 2>/dev/null | sha256sum | cut -c1-16); }

# The central side, as docs/CENTRAL.md sets it up. The password goes through stdin only (builtins: no argv).
check sync-postgres "PostgreSQL answers on 127.0.0.1:5432" wait_until 60 pg_isready -q -h 127.0.0.1
PW=$(tr -dc 'A-Za-z0-9' < /dev/urandom | head -c 24)
printf "CREATE ROLE heartd LOGIN PASSWORD '%s';\n" "$PW" | runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 > /out/sync-setup.log 2>&1 &&
  runuser -u postgres -- createdb -O heartd heart >> /out/sync-setup.log 2>&1
check sync-central "role heartd and database heart created" test $? = 0
install -m 0640 -o root -g heartd /dev/stdin /etc/heartd/sync-password <<< "$PW"
printf '\n[sync]\nurl = "postgres://heartd@127.0.0.1:5432/heart"\n# loopback: plain TCP (a remote server takes verify-full)\ntls = "disable"\ninterval = 1\n' >> /etc/heartd/heartd.toml
check sync-config "heartd check-config accepts the [sync] section" sh -c 'heartd check-config --config /etc/heartd/heartd.toml > /out/sync-check-config.txt 2>&1'

# Deliver beside the running capture daemon (the store read through WAL while it writes), then after its stop.
systemctl start heartd
if wait_until "$CAPTURE_BOUND" streaming; then pass sync-capture "heartd started again and streaming"
else fail sync-capture "heartd not streaming again within ${CAPTURE_BOUND} s"; fi
t=$(now)
systemctl enable --now heartd-sync.service > /out/sync-enable.log 2>&1
# (systemd 252 shows LoadCredential= as "[unprintable]": look at the credential systemd handed over instead)
check sync-start "systemctl enable --now heartd-sync: active, its credential in /run/credentials/heartd-sync.service/sync-password" \
  sh -c '[ "$(systemctl is-active heartd-sync)" = active ] && [ -s /run/credentials/heartd-sync.service/sync-password ]'
if wait_until "$SYNC_BOUND" delivered; then
  pass sync-deliver "the stored samples reach PostgreSQL while heartd captures: $(stored_count) ($(since "$t") s)"
else fail sync-deliver "central $(central 'SELECT count(*) FROM samples') vs stored $(stored_count) after ${SYNC_BOUND} s"; fi
before=$(stored_count)
systemctl stop heartd
t=$(now); hash=$(store_hash)
if wait_until "$SYNC_BOUND" delivered; then
  pass sync-catch-up "after heartd's stop, the series it finished are delivered too: psql count == stored == $(stored_count) (was $before; $(since "$t") s)"
else fail sync-catch-up "central $(central 'SELECT count(*) FROM samples') vs stored $(stored_count) ${SYNC_BOUND} s after heartd stopped"; fi
beats=$(central 'SELECT count(*) FROM beats')
check sync-beats "the central beats table has the heartbeat series' beats (${beats})" test "${beats:-0}" -gt 0
pid=$(sync_unit MainPID)
tr '\0' ' ' < "/proc/$pid/cmdline" > /out/sync-cmdline.txt 2>/dev/null

# Stop: clean and in time; it wrote nothing into the store.
t=$(now); systemctl stop heartd-sync; stop_s=$(since "$t")
check sync-stop "systemctl stop heartd-sync within ${SYNC_STOP_BOUND} s (${stop_s} s), Result=$(sync_unit Result), exit status $(sync_unit ExecMainStatus)" \
  sh -c "awk -v s=$stop_s -v b=$SYNC_STOP_BOUND 'BEGIN { exit !(s <= b) }' && [ \"\$(systemctl show -p Result --value heartd-sync)\" = success ]"
check sync-store-untouched "the store files are unchanged by the sync process (sha256 $hash)" test "$(store_hash)" = "$hash"

# The password: on no command line, in no property, in no journal entry (every field of this boot).
journalctl -b -o export --no-pager > /out/journal-export.bin 2>/dev/null
systemctl show heartd-sync.service > /out/sync-show.txt 2>&1
check sync-secret "the password is in no journal entry, on the command line ($(cat /out/sync-cmdline.txt)) or in the unit's properties" \
  secret_absent "$PW" /out/journal-export.bin /out/sync-cmdline.txt /out/sync-show.txt
rm -f /out/journal-export.bin

# The sandbox, probed: a oneshot unit made of heartd-sync.service's own lines, only ExecStart replaced.
cat > /run/sdlab-sync-probe.py <<'PY'
import errno, json, os, socket
r = {}
def attempt(name, f):
    try:
        f(); r[name] = "allowed"
    except OSError as e:
        r[name] = errno.errorcode.get(e.errno, str(e.errno))
attempt("af_bluetooth", lambda: socket.socket(31, socket.SOCK_SEQPACKET, 0).close())
attempt("af_netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close())
attempt("ip_connect", lambda: socket.create_connection(("127.0.0.1", 5432), timeout=5).close())
attempt("store_read", lambda: open("/var/lib/heartd/heartd.sqlite", "rb").read(100))
attempt("store_write", lambda: open("/var/lib/heartd/heartd.sqlite", "r+b").close())
attempt("store_create", lambda: os.close(os.open("/var/lib/heartd/probe", os.O_CREAT | os.O_WRONLY, 0o600)))
def state():
    os.close(os.open("/var/lib/heartd-sync/probe", os.O_CREAT | os.O_WRONLY, 0o600)); os.unlink("/var/lib/heartd-sync/probe")
attempt("state_write", state)
print("PROBE " + json.dumps(r, sort_keys=True))
PY
systemctl cat heartd-sync.service | grep -v '^#' | sed -e 's|^Type=.*|Type=oneshot|' -e 's|^ExecStart=.*|ExecStart=/usr/bin/python3 /run/sdlab-sync-probe.py|' \
  -e '/^Restart/d' -e '/^\[Install\]/,$d' -e '/^\[Service\]/a StandardOutput=truncate:/run/sdlab-sync-probe.out' \
  > /run/systemd/system/sdlab-sync-probe.service
systemctl daemon-reload && systemctl start sdlab-sync-probe.service
probe=$(sed -n 's/^PROBE //p' /run/sdlab-sync-probe.out 2>/dev/null | tail -1)
echo "$probe" > /out/sync-probe.json
check sync-sandbox "the unit's sandbox: IP yes, AF_BLUETOOTH/AF_NETLINK no, the store readable but not writable, its state dir writable: $probe" \
  python3 -c "import json,sys; r=json.loads(sys.argv[1]); sys.exit(not (r['ip_connect'] == r['store_read'] == r['state_write'] == 'allowed'
    and r['af_bluetooth'] == r['af_netlink'] == 'EAFNOSUPPORT' and r['store_write'] in ('EROFS', 'EACCES')
    and r['store_create'] in ('EROFS', 'EACCES')))" "${probe:-null}"
rm -f /run/systemd/system/sdlab-sync-probe.service /run/sdlab-sync-probe.py /run/sdlab-sync-probe.out; systemctl daemon-reload

systemd-analyze security heartd-sync --no-pager > /out/security-sync.txt 2>&1
exposure=$(sed -n 's/.*Overall exposure level for heartd-sync.service: \([0-9.]*\).*/\1/p' /out/security-sync.txt)
check sync-security "systemd-analyze security heartd-sync: ${exposure:-?} (documented: ${SYNC_EXPOSURE_BOUND})" le "${exposure:-9}" "$SYNC_EXPOSURE_BOUND"
# heartd-mqtt.service (installed by install.sh, not enabled) is sandboxed no worse than heartd-sync.service.
systemd-analyze security heartd-mqtt --no-pager > /out/security-mqtt.txt 2>&1
mqtt_exposure=$(sed -n 's/.*Overall exposure level for heartd-mqtt.service: \([0-9.]*\).*/\1/p' /out/security-mqtt.txt)
check mqtt-security "systemd-analyze security heartd-mqtt: ${mqtt_exposure:-?} (bound: heartd-sync's ${exposure:-?})" \
  le "${mqtt_exposure:-9}" "${exposure:-0}"
python3 /src/scripts/sdlab/journal_check.py denials --unit heartd-sync.service > /out/journal-denials-sync.txt 2>&1
rc=$?
check sync-journal-clean "no denial or error line from heartd-sync: $(head -1 /out/journal-denials-sync.txt)" test $rc = 0
