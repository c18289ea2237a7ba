#!/usr/bin/python3
"""heartd's resident memory: idle (no sensor), with 16 sensors connected and silent, and with 16 sensors streaming,
spread over 3 adapters of 6 slots (a gateway).

Starts a private dbus-daemon, the project's fake BlueZ (Tests/BlueZTests/Fixtures/fake_bluez.py) with 16 known
heart-rate sensors, and heartd allowed to capture all of them. Prints a markdown table, then where the resident
memory of the streaming daemon is (/proc/PID/smaps, grouped by mapping).
usage: memory.py HEARTD_BINARY [RATE_PER_SENSOR] [SECONDS]
"""
import os
import subprocess
import sys
import tempfile
import time

import dbus

HEARTD = sys.argv[1]
RATE = float(sys.argv[2]) if len(sys.argv) > 2 else 4.0
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE = os.path.join(ROOT, "Tests/BlueZTests/Fixtures/fake_bluez.py")
ADDRESSES = ["A0:9E:1A:7C:00:%02X" % i for i in range(1, 17)]


def rss(pid):
    fields = dict(line.split(":", 1) for line in open("/proc/%d/status" % pid))
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def smaps(pid):
    """RSS and dirty KB per mapped file (anonymous mappings: [heap], [stack], [anon])."""
    out, name = {}, None
    for line in open("/proc/%d/smaps" % pid):
        head = line.split()
        if "-" in head[0] and not head[0].endswith(":"):
            name = os.path.basename(head[5]) if len(head) > 5 else "[anon]"
        elif head[0] == "Rss:":
            out.setdefault(name, [0, 0])[0] += int(head[1])
        elif head[0] in ("Private_Dirty:", "Shared_Dirty:"):
            out.setdefault(name, [0, 0])[1] += int(head[1])
    return out


def start_heartd(tmp, bus, allow):
    args = [HEARTD, "--db", os.path.join(tmp, "h.sqlite"), "--socket", os.path.join(tmp, "c.sock"),
            "--set", 'control.group=""', "--set", "bluetooth.adapter_connection_limit=6", "--log-level", "warning", "--log-target", "stderr"]
    for a in allow:
        args += ["--allow", a]
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus)
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "heartd.log"), "w"))


def main():
    tmp = tempfile.mkdtemp(prefix="heartd-mem.")
    daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                              stdout=subprocess.PIPE, text=True)
    bus = daemon.stdout.readline().strip()
    fake = subprocess.Popen(["/usr/bin/python3", FAKE, "--address", bus, "--devices", ",".join(ADDRESSES), "--known",
                             "--adapters", "hci0,hci1,hci2", "--slots", "6"])
    rows = []
    try:
        time.sleep(1.0)
        idle = start_heartd(tmp, bus, [])
        time.sleep(3.0)
        rows.append(("idle, no sensor", *rss(idle.pid)))
        idle.terminate()
        idle.wait()
        h = start_heartd(tmp, bus, ADDRESSES)
        time.sleep(4.0)
        rows.append(("16 sensors connected, silent", *rss(h.pid)))
        ctl = dbus.Interface(dbus.bus.BusConnection(bus).get_object("org.bluez", "/org/heartd/fake"), "org.heartd.FakeBlueZ")
        count = int(RATE * SECONDS)
        for a in ADDRESSES:
            ctl.Stream(a, RATE, dbus.UInt32(count))
        time.sleep(SECONDS + 1.5)
        rows.append(("16 sensors streaming %g/s each for %gs" % (RATE, SECONDS), *rss(h.pid)))
        mappings = smaps(h.pid)
        h.terminate()
        h.wait(timeout=10)
    finally:
        fake.terminate()
        daemon.terminate()
    print("| heartd | RSS MB | peak RSS MB |\n|---|---:|---:|")
    for name, cur, peak in rows:
        print("| %s | %.1f | %.1f |" % (name, cur, peak))
    print("\n| mapping (16 sensors streaming) | RSS KB | of which dirty KB |\n|---|---:|---:|")
    for name, (kb, dirty) in sorted(mappings.items(), key=lambda kv: -kv[1][0]):
        if kb >= 64:
            print("| %s | %d | %d |" % (name, kb, dirty))


main()
