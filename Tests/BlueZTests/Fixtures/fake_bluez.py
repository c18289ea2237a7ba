#!/usr/bin/python3
"""fake_bluez.py - a controllable fake BlueZ (org.bluez) for the heartd BlueZ client tests.

Derived from /work/shared/bench/fake_bluez.py (see SOURCES.md). Run with Debian's /usr/bin/python3 on a
PRIVATE bus only:  fake_bluez.py --address unix:path=... --devices A0:..:01,A0:..:02 [--known]

Control interface org.heartd.FakeBlueZ at /org/heartd/fake:
  Notify(s addr, ay payload)       one 2A37 notification (signal to StartNotify clients, datagram to the fd)
  Stream(s addr, d rate, u count)  count notifications at rate/s, RR of a 1 s beat when one falls (benchmarks)
  NotifyWrongType(s addr)          PropertiesChanged Value as a string (a broken peer)
  DropLink(s addr)                 the sensor goes away: ServicesResolved=false, Connected=false, GATT removed
  SetAcquireBusy(s addr, b)        AcquireNotify answers org.bluez.Error.InProgress (another client has StartNotify)
  KeepSessions(s addr, b)          a dropped link keeps the StartNotify sessions (bluetoothd with a bonded device,
                                   whose GATT objects outlive the link); the AcquireNotify socket still closes
  RefuseAcquire(s addr, s name, s message)  AcquireNotify answers that D-Bus error, e.g. org.bluez.Error.NotPermitted
                                   "Notify acquired" (another client holds the socket) or
                                   org.freedesktop.DBus.Error.UnknownMethod (a BlueZ without it); name "" ends it
  FailConnect(s addr, u n, s name, s message)  the next n Connect calls fail with that error
  FailRead(s addr, q uuid16, u n, s name, s message)  the next n ReadValue calls of that characteristic fail so
  HangConnect(s addr, b)           Connect never replies (sensor out of range)
  SilentConnected(s addr, b)       Connect sets Connected=true without a PropertiesChanged (bluetoothd 5.66 in the lab)
  NeverResolve(s addr, b)          Connect links but ServicesResolved never comes (btvirt with a busy peer, in the lab)
  LateDeviceInformation(s addr, u ms)  Device Information objects exported ms after ServicesResolved (bluetoothd
                                   after a restart, in the lab)
  SetPowered(b)                    adapter power (off drops every link); PowerState follows (on/off), as in 5.66
  SetBlocked(b)                    rfkill: Powered=false and PowerState off-blocked; unblocking powers it again
  SetAdapterPresent(b)             remove / re-add the adapter with its devices (controller unplugged)
  SetNamedAdapterPresent(s name, b)  the same for one adapter of several (--adapters)
  Battery(s addr, y percent)       set 2A19 and notify it
  (--adapters hci0,hci1,...: several controllers that all see every device, each device once per adapter, like
   bluetoothd; --slots N: an adapter refuses an (N+1)th connection with org.bluez.Error.Failed
   "le-connection-concurrent-connection-limit", what bluetoothd 5.66 answers when the kernel reports EMLINK.
   Notify/Stream go to every adapter the sensor is connected through, like a sensor linked to two centrals;
   --discovery-delay hci1=1500: that adapter's discovery finds the devices only 1.5 s after StartDiscovery, and
   not at all if discovery is stopped before, like a second radio that is slower to hear the advertisements.)
  (--stale-connected S: devices start Connected=true, ServicesResolved=false, then drop after S s,
   like bluetoothd after a restart)
  DiscoveryFilter(s adapter) -> a{ss}  the adapter's last SetDiscoveryFilter: UUIDs (comma-separated), Transport
  (--other-devices ADDR,...: devices that advertise no heart-rate service (HID 0x1812, "Fake Keyboard N"); discovery
   with a UUIDs filter finds only devices advertising one of them, like bluetoothd; each device's RSSI is
   -50 - 5 x its index)
  Stats(s addr) -> a{si}           counters: connect, disconnect, start_notify, stop_notify, acquire_notify,
                                   acquire_refused, start_notify_battery, subscribed, fd_open, discovery_starts, discovering,
                                   links (adapters connected now), max_links (most at once), sent (Stream values)
"""
import argparse, ctypes, os, signal, socket, sys
import dbus, dbus.lowlevel, dbus.mainloop.glib, dbus.service
from gi.repository import GLib

ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: never outlive the test process

OM = "org.freedesktop.DBus.ObjectManager"
PROPS = "org.freedesktop.DBus.Properties"
ADAPTER = "org.bluez.Adapter1"
DEVICE = "org.bluez.Device1"
GSVC = "org.bluez.GattService1"
GCHR = "org.bluez.GattCharacteristic1"
CTL = "org.heartd.FakeBlueZ"

def uuid16(u):
    return "0000%04x-0000-1000-8000-00805f9b34fb" % u

class BzError(dbus.DBusException):
    def __init__(self, name, message):
        dbus.DBusException.__init__(self, message, name=name)

class Obj(dbus.service.Object):
    def __init__(self, fake, path, iface, props):
        self.fake, self.path, self.iface, self.props = fake, path, iface, props
        self.exported = False

    def export(self, announce=True):
        if self.exported:
            return
        dbus.service.Object.__init__(self, self.fake.bus, self.path)
        self.exported = True
        if announce:
            self.fake.root.InterfacesAdded(dbus.ObjectPath(self.path),
                                           {self.iface: dbus.Dictionary(self.props, signature="sv")})

    def unexport(self):
        if not self.exported:
            return
        self.remove_from_connection()
        self.exported = False
        self.fake.root.InterfacesRemoved(dbus.ObjectPath(self.path), dbus.Array([self.iface], signature="s"))

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, iface, name):
        return self.props[name]

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, iface):
        return dbus.Dictionary(self.props, signature="sv")

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, iface, changed, invalidated):
        pass

    def set(self, **changed):
        self.props.update(changed)
        if self.exported:
            self.PropertiesChanged(self.iface, dbus.Dictionary(changed, signature="sv"), dbus.Array([], signature="s"))

class Root(dbus.service.Object):
    def __init__(self, fake):
        self.fake = fake
        dbus.service.Object.__init__(self, fake.bus, "/")

    @dbus.service.method(OM, out_signature="a{oa{sa{sv}}}")
    def GetManagedObjects(self):
        out = {}
        for o in self.fake.all_objects():
            if o.exported:
                out[dbus.ObjectPath(o.path)] = {o.iface: dbus.Dictionary(o.props, signature="sv")}
        return dbus.Dictionary(out, signature="oa{sa{sv}}")

    @dbus.service.signal(OM, signature="oa{sa{sv}}")
    def InterfacesAdded(self, path, ifaces):
        pass

    @dbus.service.signal(OM, signature="oas")
    def InterfacesRemoved(self, path, ifaces):
        pass

class Adapter(Obj):
    def __init__(self, fake, name, index=0):
        Obj.__init__(self, fake, "/org/bluez/" + name, ADAPTER, {
            "Address": "00:1A:7D:DA:71:%02X" % (0x13 + index), "Name": "fakehost", "Alias": "fakehost",
            "Powered": dbus.Boolean(True), "PowerState": "on", "Discovering": dbus.Boolean(False),
            "Roles": dbus.Array(["central"], signature="s")})
        self.filter = None

    @dbus.service.method(ADAPTER, in_signature="a{sv}")
    def SetDiscoveryFilter(self, flt):
        self.filter = dict(flt)

    @dbus.service.method(ADAPTER)
    def StartDiscovery(self):
        if not self.props["Powered"]:
            raise BzError("org.bluez.Error.NotReady", "Resource Not Ready")
        self.fake.counters["discovery_starts"] += 1
        if not self.props["Discovering"]:
            self.set(Discovering=dbus.Boolean(True))
        GLib.timeout_add(self.fake.discovery_delay.get(self.path.split("/")[-1], 50), lambda: self.fake.advertise_all(self))

    @dbus.service.method(ADAPTER)
    def StopDiscovery(self):
        if not self.props["Discovering"]:
            raise BzError("org.bluez.Error.Failed", "No discovery started")
        self.set(Discovering=dbus.Boolean(False))

class Device(Obj):
    def __init__(self, fake, adapter, addr, index, heart_rate=True):
        name = ("Fake HR %d" if heart_rate else "Fake Keyboard %d") % index
        uuids = [uuid16(0x180d), uuid16(0x180a), uuid16(0x180f)] if heart_rate else [uuid16(0x1812), uuid16(0x180f)]
        Obj.__init__(self, fake, adapter.path + "/dev_" + addr.replace(":", "_"), DEVICE, {
            "Address": addr, "AddressType": "random", "Name": name, "Alias": name,
            "Appearance": dbus.UInt16(0x0341 if heart_rate else 0x03C1), "Paired": dbus.Boolean(False),
            "Trusted": dbus.Boolean(False),
            "Connected": dbus.Boolean(False), "ServicesResolved": dbus.Boolean(False),
            "RSSI": dbus.Int16(-50 - 5 * index),
            "UUIDs": dbus.Array(uuids, signature="s"),
            "Adapter": dbus.ObjectPath(adapter.path)})
        self.addr, self.index, self.adapter = addr, index, adapter
        self.c = dict(connect=0, disconnect=0, start_notify=0, stop_notify=0, acquire_notify=0, acquire_refused=0,
                      start_notify_battery=0)
        self.connect_failures = []  # (name, message)
        self.acquire_busy = False
        self.acquire_refusal = None  # (name, message)
        self.keep_sessions = False
        self.hang_connect = False
        self.silent_connected = False
        self.never_resolve = False
        self.late_dis_ms = 0
        self.read_failures = {}  # 16-bit UUID -> [(name, message)], one per ReadValue to fail
        self.hung = []
        self.gatt = []
        h = 0x10
        def svc(u):
            nonlocal h
            s = Obj(fake, "%s/service%04x" % (self.path, h), GSVC, {
                "UUID": uuid16(u), "Device": dbus.ObjectPath(self.path), "Primary": dbus.Boolean(True)})
            h += 1
            self.gatt.append(s)
            return s
        def chrc(s, u, flags, value=b""):
            nonlocal h
            c = Char(fake, self, "%s/char%04x" % (s.path, h), u, s, flags, value)
            h += 2
            self.gatt.append(c)
            return c
        hrs = svc(0x180d)
        self.hrm = chrc(hrs, 0x2a37, ["notify"])
        chrc(hrs, 0x2a38, ["read"], b"\x01")
        dis = svc(0x180a)
        self.dis = [dis]
        for u, v in [(0x2a29, "HRLab Instruments"), (0x2a24, "HRL-1"), (0x2a25, "SN-%04d" % index),
                     (0x2a27, "rev-B"), (0x2a26, "1.4.2"), (0x2a28, "fake 1")]:
            self.dis.append(chrc(dis, u, ["read"], v.encode() + b"\x00"))
        bas = svc(0x180f)
        self.battery = chrc(bas, 0x2a19, ["read", "notify"], bytes([87]))

    @dbus.service.method(DEVICE, async_callbacks=("reply", "error"))
    def Connect(self, reply, error):
        self.c["connect"] += 1
        if self.hang_connect:
            self.hung.append(reply)  # never answered: a sensor out of range
            return
        try:
            self._connect()
        except dbus.DBusException as e:
            error(e)
            return
        reply()

    def _connect(self):
        if self.connect_failures:
            name, message = self.connect_failures.pop(0)
            raise BzError(name, message)
        if not self.adapter.props["Powered"]:
            raise BzError("org.bluez.Error.NotReady", "Resource Not Ready")
        if self.props["Connected"]:
            raise BzError("org.bluez.Error.AlreadyConnected", "Already Connected")
        if self.fake.slots and self.fake.connected_on(self.adapter) >= self.fake.slots:
            self.fake.counters["limit_refusals"] += 1
            raise BzError("org.bluez.Error.Failed", "le-connection-concurrent-connection-limit")
        if self.silent_connected:
            self.props["Connected"] = dbus.Boolean(True)  # GetManagedObjects says so; no signal says so
        else:
            self.set(Connected=dbus.Boolean(True))
        links = len(self.fake.links(self.addr))
        self.fake.max_links[self.addr] = max(self.fake.max_links.get(self.addr, 0), links)
        late = [o for o in self.gatt if o in self.dis] if self.late_dis_ms else []
        for o in self.gatt:
            if o not in late:
                o.export()
        if not self.never_resolve:
            GLib.timeout_add(20, lambda: self.set(ServicesResolved=dbus.Boolean(True)) and False)
        def export_late():
            if self.props["Connected"]:
                for o in late:
                    o.export()
            return False
        if late:
            GLib.timeout_add(20 + self.late_dis_ms, export_late)

    @dbus.service.method(DEVICE)
    def Disconnect(self):
        self.c["disconnect"] += 1
        self.drop()

    def drop(self):
        for o in self.gatt:
            if isinstance(o, Char):
                o.drop_sessions()
        if self.props["ServicesResolved"]:
            self.set(ServicesResolved=dbus.Boolean(False))
        if self.props["Connected"]:
            self.set(Connected=dbus.Boolean(False))
        for o in reversed(self.gatt):
            o.unexport()

class Char(Obj):
    def __init__(self, fake, dev, path, u, svc, flags, value):
        props = {"UUID": uuid16(u), "Service": dbus.ObjectPath(svc.path), "Value": dbus.ByteArray(value),
                 "Notifying": dbus.Boolean(False), "Flags": dbus.Array(flags, signature="s")}
        if "notify" in flags:
            props["NotifyAcquired"] = dbus.Boolean(False)
        Obj.__init__(self, fake, path, GCHR, props)
        self.dev, self.u, self.value = dev, u, value
        self.clients = {}
        self.sock = None

    @dbus.service.method(GCHR, in_signature="a{sv}", out_signature="ay")
    def ReadValue(self, opts):
        if "read" not in self.props["Flags"]:
            raise BzError("org.bluez.Error.NotPermitted", "Read not permitted")
        failures = self.dev.read_failures.get(self.u)
        if failures:
            raise BzError(*failures.pop(0))
        return dbus.ByteArray(self.value)

    @dbus.service.method(GCHR, sender_keyword="sender")
    def StartNotify(self, sender=None):
        if "notify" not in self.props["Flags"]:
            raise BzError("org.bluez.Error.NotSupported", "Operation is not supported")
        if self.sock is not None:
            raise BzError("org.bluez.Error.NotPermitted", "Notify acquired")
        if sender in self.clients:
            raise BzError("org.bluez.Error.InProgress", "In Progress")
        self.dev.c["start_notify" if self.u == 0x2a37 else "start_notify_battery"] += 1
        self.clients[sender] = self.fake.bus.watch_name_owner(
            sender, lambda owner, s=sender: self.client_gone(s) if not owner else None)
        if not self.props["Notifying"]:
            self.set(Notifying=dbus.Boolean(True))

    def client_gone(self, sender):
        w = self.clients.pop(sender, None)
        if w is not None:
            GLib.idle_add(w.cancel)

    @dbus.service.method(GCHR, sender_keyword="sender")
    def StopNotify(self, sender=None):
        w = self.clients.pop(sender, None)
        if w is None:
            raise BzError("org.bluez.Error.Failed", "No notify session started")
        w.cancel()
        if self.u == 0x2a37:
            self.dev.c["stop_notify"] += 1
        if not self.clients and self.sock is None:
            self.set(Notifying=dbus.Boolean(False))

    @dbus.service.method(GCHR, in_signature="a{sv}", out_signature="hq")
    def AcquireNotify(self, opts):
        if "NotifyAcquired" not in self.props:
            raise BzError("org.bluez.Error.NotSupported", "Operation is not supported")
        if self.dev.acquire_refusal:
            self.dev.c["acquire_refused"] += 1
            raise BzError(*self.dev.acquire_refusal)
        if self.dev.acquire_busy or self.clients:
            raise BzError("org.bluez.Error.InProgress", "In Progress")
        if self.sock is not None:
            raise BzError("org.bluez.Error.NotPermitted", "Notify acquired")
        # As bluetoothd 5.66 (src/gatt-client.c): SOCK_SEQPACKET | SOCK_NONBLOCK; the client's end keeps the flag.
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET | socket.SOCK_NONBLOCK)
        ours.setblocking(False)
        self.sock = ours
        self.watch = GLib.io_add_watch(ours.fileno(), GLib.PRIORITY_DEFAULT, GLib.IO_HUP | GLib.IO_ERR, self.fd_hup)
        fd = dbus.types.UnixFd(theirs)
        theirs.close()
        self.dev.c["acquire_notify"] += 1
        self.set(NotifyAcquired=dbus.Boolean(True))
        return (fd, dbus.UInt16(185))

    def fd_hup(self, fd, cond):
        self.release_fd()
        return False

    def release_fd(self):
        if self.sock is None:
            return
        GLib.source_remove(self.watch)
        self.sock.close()
        self.sock = None
        self.set(NotifyAcquired=dbus.Boolean(False))

    def drop_sessions(self):
        self.release_fd()
        if self.dev.keep_sessions:
            return
        for w in self.clients.values():
            w.cancel()
        self.clients.clear()
        if self.props["Notifying"]:
            self.set(Notifying=dbus.Boolean(False))

    def notify(self, payload):
        self.value = bytes(payload)
        if self.sock is not None:
            try:
                self.sock.send(self.value)
            except OSError:
                pass
        if self.clients:
            msg = dbus.lowlevel.SignalMessage(self.path, PROPS, "PropertiesChanged")
            msg.append(GCHR, {"Value": dbus.ByteArray(self.value)}, dbus.Array([], signature="s"), signature="sa{sv}as")
            self.fake.bus.send_message(msg)

class Control(dbus.service.Object):
    def __init__(self, fake):
        self.fake = fake
        dbus.service.Object.__init__(self, fake.bus, "/org/heartd/fake")

    def dev(self, addr):
        """The instance the sensor is connected through (the first adapter's if none)."""
        links = self.fake.links(str(addr))
        return links[0] if links else self.fake.devices[str(addr)]

    def send(self, addr, payload):
        for d in self.fake.links(str(addr)) or [self.fake.devices[str(addr)]]:
            d.hrm.notify(payload)

    @dbus.service.method(CTL, in_signature="say")
    def Notify(self, addr, payload):
        self.send(addr, bytes(payload))

    @dbus.service.method(CTL, in_signature="sdu")
    def Stream(self, addr, rate, count):
        """count notifications paced at rate/s, with catch-up, like a strap at rest: a heart rate in each, and the RR
        of a beat every second (1024/1024 s) in the notification sent at or after that beat (notification i, sent
        at i/rate s, carries the beats in ((i-1)/rate, i/rate]). So the RR chain keeps time with the notifications
        at any rate: at 4/s one notification in four carries an RR, at 1/s each one after the first."""
        st = {"sent": 0, "t0": GLib.get_monotonic_time() / 1e6}
        self.fake.sent[str(addr)] = 0
        def beats_by(i):
            return int(i / rate + 1e-9)
        def tick():
            due = min(int(count), int((GLib.get_monotonic_time() / 1e6 - st["t0"]) * rate) + 1)
            while st["sent"] < due:
                i = st["sent"]
                beats = beats_by(i) - beats_by(i - 1) if i > 0 else 0
                flags = 0x06 | (0x10 if beats else 0)  # contact detected; RR present
                self.send(addr, bytes([flags, 60]) + b"\x00\x04" * beats)
                st["sent"] += 1
                self.fake.sent[str(addr)] = st["sent"]
            return st["sent"] < int(count)
        GLib.timeout_add(max(1, int(1000 / rate)), tick)

    @dbus.service.method(CTL, in_signature="s")
    def NotifyWrongType(self, addr):
        c = self.dev(addr).hrm
        msg = dbus.lowlevel.SignalMessage(c.path, PROPS, "PropertiesChanged")
        msg.append(GCHR, {"Value": dbus.String("not bytes")}, dbus.Array([], signature="s"), signature="sa{sv}as")
        self.fake.bus.send_message(msg)

    @dbus.service.method(CTL, in_signature="s")
    def DropLink(self, addr):
        self.dev(addr).drop()

    @dbus.service.method(CTL, in_signature="sb")
    def SetAcquireBusy(self, addr, busy):
        self.dev(addr).acquire_busy = bool(busy)

    @dbus.service.method(CTL, in_signature="sb")
    def KeepSessions(self, addr, on):
        for d in self.fake.instances():
            if d.addr == str(addr):
                d.keep_sessions = bool(on)

    @dbus.service.method(CTL, in_signature="sss")
    def RefuseAcquire(self, addr, name, message):
        self.dev(addr).acquire_refusal = (str(name), str(message)) if name else None

    @dbus.service.method(CTL, in_signature="sb")
    def HangConnect(self, addr, hang):
        self.dev(addr).hang_connect = bool(hang)

    @dbus.service.method(CTL, in_signature="sb")
    def SilentConnected(self, addr, on):
        self.dev(addr).silent_connected = bool(on)

    @dbus.service.method(CTL, in_signature="sb")
    def NeverResolve(self, addr, on):
        self.dev(addr).never_resolve = bool(on)

    @dbus.service.method(CTL, in_signature="su")
    def LateDeviceInformation(self, addr, ms):
        self.dev(addr).late_dis_ms = int(ms)

    @dbus.service.method(CTL, in_signature="squss")
    def FailRead(self, addr, uuid16, n, name, message):
        self.dev(addr).read_failures[int(uuid16)] = [(str(name), str(message))] * int(n)

    @dbus.service.method(CTL, in_signature="suss")
    def FailConnect(self, addr, n, name, message):
        self.dev(addr).connect_failures = [(str(name), str(message))] * int(n)

    @dbus.service.method(CTL, in_signature="b")
    def SetPowered(self, on):
        self.power(bool(on), "on" if on else "off")

    @dbus.service.method(CTL, in_signature="b")
    def SetBlocked(self, blocked):
        """rfkill: blocked is Powered=false with PowerState off-blocked; unblocked, bluetoothd powers it (rfkill.c)."""
        self.power(not blocked, "off-blocked" if blocked else "on")

    def power(self, on, state):
        a = self.fake.adapter
        if not on:
            for d in self.fake.devices.values():
                d.drop()
            if a.props["Discovering"]:
                a.set(Discovering=dbus.Boolean(False))
        a.set(Powered=dbus.Boolean(on), PowerState=state)

    @dbus.service.method(CTL, in_signature="b")
    def SetAdapterPresent(self, present):
        """False: the controller is unplugged (devices and adapter removed); True: plugged back."""
        self.SetNamedAdapterPresent(self.fake.adapter.path.split("/")[-1], present)

    @dbus.service.method(CTL, in_signature="sb")
    def SetNamedAdapterPresent(self, name, present):
        a = self.fake.adapters[str(name)]
        devices = [d for d in self.fake.instances() if d.adapter is a]
        if not present:
            for d in devices:
                d.drop()
                d.unexport()
            a.unexport()
            a.props["Discovering"] = dbus.Boolean(False)
        else:
            a.props["Powered"], a.props["PowerState"] = dbus.Boolean(True), "on"
            a.export()
            for d in devices:
                d.export()

    @dbus.service.method(CTL, in_signature="sy")
    def Battery(self, addr, pct):
        self.dev(addr).battery.notify(bytes([int(pct)]))

    @dbus.service.method(CTL, in_signature="s", out_signature="a{ss}")
    def DiscoveryFilter(self, name):
        flt = self.fake.adapters[str(name)].filter or {}
        return dbus.Dictionary({"UUIDs": ",".join(str(u) for u in flt.get("UUIDs", [])),
                                "Transport": str(flt.get("Transport", ""))}, signature="ss")

    @dbus.service.method(CTL, in_signature="s", out_signature="a{si}")
    def Stats(self, addr):
        d = self.dev(addr)
        out = dict(d.c)
        out["subscribed"] = len(d.hrm.clients)
        out["fd_open"] = 1 if d.hrm.sock is not None else 0
        out["discovery_starts"] = self.fake.counters["discovery_starts"]
        out["discovering"] = 1 if self.fake.adapter.props["Discovering"] else 0
        out["links"] = len(self.fake.links(str(addr)))
        out["max_links"] = self.fake.max_links.get(str(addr), 0)
        out["sent"] = self.fake.sent.get(str(addr), 0)
        out["limit_refusals"] = self.fake.counters["limit_refusals"]
        return dbus.Dictionary(out, signature="si")

class Fake:
    def __init__(self, args):
        self.bus = dbus.bus.BusConnection(args.address)
        self.counters = {"discovery_starts": 0, "limit_refusals": 0}
        self.slots = args.slots
        self.discovery_delay = {n: int(ms) for n, ms in (e.split("=") for e in args.discovery_delay.split(",") if e)}
        self.max_links, self.sent = {}, {}
        self.root = Root(self)
        names = [n for n in (args.adapters or args.adapter).split(",") if n]
        self.adapters = {n: Adapter(self, n, i) for i, n in enumerate(names)}
        self.adapter = self.adapters[names[0]]
        self.per_adapter = {}  # adapter name -> {addr: Device}
        for n, ad in self.adapters.items():
            self.per_adapter[n] = {a: Device(self, ad, a, i + 1)
                                   for i, a in enumerate(filter(None, args.devices.split(",")))}
            hr_count = len(self.per_adapter[n])
            for i, a in enumerate(filter(None, args.other_devices.split(","))):
                self.per_adapter[n][a] = Device(self, ad, a, hr_count + i + 1, heart_rate=False)
        self.devices = self.per_adapter[names[0]]
        for ad in self.adapters.values():
            ad.export(announce=False)
        if args.known or args.stale_connected:
            for d in self.instances():
                d.export(announce=False)
        if args.stale_connected:
            # What bluetoothd 5.66 does after a restart (lab): the device comes back Connected=true,
            # ServicesResolved=false, never resolves, and the kernel drops the old link ~2 s later.
            for d in self.devices.values():
                d.props["Connected"] = dbus.Boolean(True)
                GLib.timeout_add(int(args.stale_connected * 1000), lambda d=d: d.set(Connected=dbus.Boolean(False)) and False)
        self.control = Control(self)
        self.name = dbus.service.BusName("org.bluez", self.bus, do_not_queue=True)

    def instances(self):
        return [d for devs in self.per_adapter.values() for d in devs.values()]

    def links(self, addr):
        """The instances of a sensor that are connected (one per adapter it is linked through)."""
        return [devs[addr] for devs in self.per_adapter.values() if addr in devs and devs[addr].props["Connected"]]

    def connected_on(self, adapter):
        return sum(1 for d in self.instances() if d.adapter is adapter and d.props["Connected"])

    def all_objects(self):
        out = list(self.adapters.values())
        for d in self.instances():
            out.append(d)
            out.extend(d.gatt)
        return out

    def advertise_all(self, adapter):
        if adapter.exported and adapter.props["Discovering"]:
            wanted = [str(u).lower() for u in (adapter.filter or {}).get("UUIDs", [])]
            for d in self.instances():
                if d.adapter is adapter and (not wanted or any(str(u).lower() in wanted for u in d.props["UUIDs"])):
                    d.export()
        return False

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--address", required=True)
    ap.add_argument("--devices", default="A0:9E:1A:7C:00:01")
    ap.add_argument("--adapter", default="hci0")
    ap.add_argument("--adapters", default="", help="several adapters, comma-separated (overrides --adapter)")
    ap.add_argument("--slots", type=int, default=0, help="connections per adapter (0: no limit)")
    ap.add_argument("--discovery-delay", default="",
                    help="NAME=MS,...: that adapter's discovery finds devices only MS after StartDiscovery (default 50)")
    ap.add_argument("--other-devices", default="", help="ADDR,...: devices without a heart-rate service")
    ap.add_argument("--known", action="store_true", help="devices exist at start (no discovery needed)")
    ap.add_argument("--stale-connected", type=float, default=0,
                    help="export devices Connected=true but unresolved, drop to false after this many s")
    args = ap.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    Fake(args)
    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGTERM, loop.quit)
    loop.run()

if __name__ == "__main__":
    main()
