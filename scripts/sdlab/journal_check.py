#!/usr/bin/env python3
"""Checks heartd's own journal entries of this boot (_SYSTEMD_UNIT=heartd.service, or heartd-sync.service), for
scripts/sdlab/user.sh and sync.sh.

  journal_check.py fields ADDRESS     every entry that mentions the sensor (its address, or its BlueZ object path
                                      dev_AA_BB_…) carries HEARTD_DEVICE=ADDRESS, and `journalctl -u heartd
                                      HEARTD_DEVICE=ADDRESS` returns exactly those entries
  journal_check.py denials [--unit U] [PID …]
                                      no entry of unit U (default heartd.service) at priority err or worse and none
                                      that reads like a denial (permission, errno, seccomp), except from the listed
                                      PIDs (the daemon the watchdog aborted), which are counted apart
Prints one line of counts; exits 1 with the offending entries on failure."""
import json
import re
import subprocess
import sys


def entries(*match):
    out = subprocess.run(["journalctl", "-b", "-o", "json", "--no-pager", *match],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def text(value):
    return value if isinstance(value, str) else json.dumps(value)


def show(entry):
    fields = {k: text(v) for k, v in entry.items() if not k.startswith("_") and not k.startswith("__")}
    return f"pid={entry.get('_PID')} {fields}"


def fields(address):
    path = "dev_" + address.replace(":", "_")
    own = entries("_SYSTEMD_UNIT=heartd.service")
    about = [e for e in own
             if any((address in text(v) or path in text(v)) for k, v in e.items() if k != "HEARTD_DEVICE")
             or "HEARTD_DEVICE" in e]
    missing = [e for e in about if e.get("HEARTD_DEVICE") != address]
    queried = {e["__CURSOR"] for e in entries("-u", "heartd", f"HEARTD_DEVICE={address}")}
    expected = {e["__CURSOR"] for e in about}
    adapters = sum(1 for e in own if e.get("HEARTD_ADAPTER"))
    print(f"heartd entries={len(own)} about-device={len(about)} without-HEARTD_DEVICE={len(missing)} "
          f"query-HEARTD_DEVICE={len(queried)} with-HEARTD_ADAPTER={adapters}")
    ok = not missing and queried == expected and len(about) >= 5 and adapters > 0
    for e in missing[:20]:
        print("  no HEARTD_DEVICE:", show(e))
    if queried != expected:
        print(f"  the query and the entries that mention the device differ by {len(queried ^ expected)}")
    return ok


DENIAL = re.compile(r"denied|not permitted|errno|EACCES|EPERM|seccomp|Failed to set thread priority|audit", re.I)


def denials(excluded, unit="heartd.service"):
    own = entries(f"_SYSTEMD_UNIT={unit}")
    bad, aborted = [], 0
    for e in own:
        priority = int(e.get("PRIORITY", "6"))
        if priority <= 3 or DENIAL.search(text(e.get("MESSAGE", ""))):
            if e.get("_PID") in excluded:
                aborted += 1
            else:
                bad.append(e)
    kernel = [e for e in entries("-k") if "heartd" in text(e.get("MESSAGE", "")) and DENIAL.search(text(e.get("MESSAGE", "")))]
    print(f"{unit} entries={len(own)} error-or-denial={len(bad)} kernel-denials={len(kernel)} "
          f"from-the-aborted-daemon={aborted}")
    for e in (bad + kernel)[:20]:
        print("  ", show(e))
    return not bad and not kernel


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "fields":
        ok = fields(args[0])
    elif args[:1] == ["--unit"]:
        ok = denials(set(args[2:]), args[1])
    else:
        ok = denials(set(args))
    sys.exit(0 if ok else 1)
