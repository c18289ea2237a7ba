"""A gateway for the bench scripts (soak.py, gateway-cpu.py, memory.py): a private dbus-daemon, the project's fake
BlueZ (Tests/BlueZTests/Fixtures/fake_bluez.py) serving N sensors through 3 adapters of 6 slots (or `adapters`), and heartd allowed
to capture them all, or those given as `allow` (adapter_connection_limit 6, a silent-stop timeout longer than the
wait before the stream); `env` adds to heartd's environment. Also the process figures the scripts read."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import dbus

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE = os.path.join(ROOT, "Tests/BlueZTests/Fixtures/fake_bluez.py")


class Gateway:
    def __init__(self, heartd, addresses, prefix, extra=(), allow=None, env=None, keep_files=False, adapters=3):
        self.addresses = addresses
        self.keep_files = keep_files  # the store and log stay for inspection after stop()
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        self.db = os.path.join(self.tmp, "h.sqlite")
        self.bus_daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                                           stdout=subprocess.PIPE, text=True)
        bus = self.bus_daemon.stdout.readline().strip()
        self.fake = subprocess.Popen(["/usr/bin/python3", FAKE, "--address", bus, "--devices", ",".join(addresses),
                                      "--known", "--adapters", ",".join("hci%d" % i for i in range(adapters)), "--slots", "6"])
        time.sleep(2.0)  # the fake owns org.bluez
        self.socket = os.path.join(self.tmp, "c.sock")
        argv = [heartd, "--db", self.db, "--socket", self.socket, "--set", 'control.group=""',
                "--set", "bluetooth.adapter_connection_limit=6", "--set", "bluetooth.silent_stop_seconds=600",
                "--log-level", "warning", "--log-target", "stderr", *extra]
        for a in addresses if allow is None else allow:
            argv += ["--allow", a]
        self.heartd = subprocess.Popen(argv, env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus, **(env or {})),
                                       stdout=subprocess.DEVNULL,
                                       stderr=open(os.path.join(self.tmp, "heartd.log"), "w"))
        self.started = time.time()
        self.ctl = dbus.Interface(dbus.bus.BusConnection(bus).get_object("org.bluez", "/org/heartd/fake"),
                                  "org.heartd.FakeBlueZ")

    def wait_subscribed(self, key=None, timeout=180):
        """Waits until every sensor is subscribed: `subscribed` (StartNotify), `fd_open` (AcquireNotify), or either
        (None: heartd's default, AcquireNotify, with StartNotify for a refused connection); says which are not at the
        timeout."""
        def done(a):
            s = self.ctl.Stats(a)
            return (s["subscribed"] + s["fd_open"] if key is None else s[key]) >= 1
        deadline = time.time() + timeout
        while not all(done(a) for a in self.addresses):
            if time.time() > deadline:
                late = [a for a in self.addresses if not done(a)]
                print("not subscribed within %d s: %s (log: %s/heartd.log)" % (timeout, late, self.tmp), file=sys.stderr)
                self.keep_files = True  # the log named above
                return False
            time.sleep(0.5)
        return True

    def stop(self):
        if self.heartd.poll() is None:
            self.heartd.kill()
        self.fake.terminate()
        self.bus_daemon.terminate()
        if not self.keep_files:
            self.heartd.wait()
            shutil.rmtree(self.tmp, ignore_errors=True)


def rss_mb(pid):
    """Resident and peak resident memory (MB) of a process."""
    fields = dict(line.split(":", 1) for line in open("/proc/%d/status" % pid))
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024
