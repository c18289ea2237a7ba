"""Shared by the lab's store checks (check-store.py, check-two-sensors.py): one line per check, heartctl --db
--json queries, the peripheral's log, RR counting and the device-metadata comparison."""
import json
import subprocess
import sys


class Checker:
    def __init__(self, heartctl, db):
        self.heartctl, self.db = heartctl, db
        self.passed, self.failures = [], []

    def check(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        (self.passed if ok else self.failures).append(what)
        return ok

    def ctl(self, *args):
        out = subprocess.run([self.heartctl, "--db", self.db, *args, "--json"],
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    def integrity(self):
        result = subprocess.run(["sqlite3", self.db, "PRAGMA integrity_check"], capture_output=True, text=True).stdout.strip()
        self.check(result == "ok", f"integrity_check: {result}")

    def finish(self):
        print(f"lab: {len(self.passed)} passed, {len(self.failures)} failed")
        sys.exit(1 if self.failures else 0)


def peripheral_events(path):
    """peripheral.py's JSON lines: (events, device-info, the sensor's address, the notify events)."""
    events = [json.loads(line) for line in open(path) if line.startswith("{")]
    info = next(e for e in events if e.get("ev") == "device-info")
    address = next(e for e in events if e.get("ev") == "adapter")["address"]
    return events, info, address, [e for e in events if e.get("ev") == "notify"]


def rr_count(payload):
    """RR intervals in one 0x2A37 payload (hex)."""
    b = bytes.fromhex(payload)
    if not b or not b[0] & 0x10:
        return 0
    start = 1 + (2 if b[0] & 0x01 else 1) + (2 if b[0] & 0x08 else 0)
    return max(0, (len(b) - start) // 2)


def check_device(c, info, address, label=""):
    """The stored device equals what the peripheral exposes (Device Information strings, serial, location)."""
    device = next((d for d in c.ctl("devices")["devices"] if d["address"] == address), None)
    c.check(device is not None, f"{label}device {address} stored")
    if not device:
        return
    i = device["info"]
    expected = {"manufacturer": info["manufacturer"], "model": info["model"], "hardwareVersion": info["hardware"],
                "firmwareVersion": info["firmware"], "softwareVersion": info["software"], "localIdentifier": address}
    for key, value in expected.items():
        c.check(i.get(key) == value, f"{label}device {key} = {value!r} (stored {i.get(key)!r})")
    c.check(i.get("metadata", {}).get("HKMetadataKeyDeviceSerialNumber") == info["serial"], f"{label}serial number {info['serial']}")
    c.check(i.get("metadata", {}).get("HKMetadataKeyHeartRateSensorLocation") == str(info["location"]),
            f"{label}body sensor location {info['location']}")
    c.check(bool(i.get("name")), f"{label}device name {i.get('name')!r}")
