/// A dbus-python service for the binding's tests (run with /usr/bin/python3 on a private bus).
///
/// Name `org.heartd.Test`, object `/org/heartd/Test`, interface `org.heartd.Test`:
/// - `Echo(...)` returns its arguments with the exact same signature (unix fds included),
/// - `Sleep()` never replies (timeouts), `Fail()` replies `org.heartd.Test.Error.Boom: boom`,
/// - `Emit(u n)` emits `Tick(u i)` n times, then `Done()`; `EmitPaced(u n, u ms [, u pad])` does the same, one
///   Tick every `ms` milliseconds (with a string of `pad` bytes after the number if given); `WriteFD(h fd, ay data)` writes data to fd.
let echoServiceScript = #"""
import ctypes, os, signal, sys
ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the test process
import dbus, dbus.lowlevel, dbus.mainloop.glib
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
IFACE = "org.heartd.Test"
PATH = "/org/heartd/Test"

def reply(msg, *args, signature=None):
    r = dbus.lowlevel.MethodReturnMessage(msg)
    if args:
        r.append(*args, signature=signature)
    bus.send_message(r)

def on_message(_bus, msg):
    if not isinstance(msg, dbus.lowlevel.MethodCallMessage) or msg.get_interface() != IFACE:
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
    m = msg.get_member()
    if m == "Echo":
        reply(msg, *msg.get_args_list(byte_arrays=False), signature=msg.get_signature())
    elif m == "Sleep":
        pass
    elif m == "Fail":
        bus.send_message(dbus.lowlevel.ErrorMessage(msg, "org.heartd.Test.Error.Boom", "boom"))
    elif m == "Emit":
        n = int(msg.get_args_list()[0])
        reply(msg)
        for i in range(n):
            s = dbus.lowlevel.SignalMessage(PATH, IFACE, "Tick")
            s.append(dbus.UInt32(i), signature="u")
            bus.send_message(s)
        bus.send_message(dbus.lowlevel.SignalMessage(PATH, IFACE, "Done"))
    elif m == "EmitPaced":
        args = [int(a) for a in msg.get_args_list()]
        n, ms, pad = args[0], args[1], (args[2] if len(args) > 2 else 0)
        reply(msg)
        state = {"i": 0}
        def tick():
            if state["i"] >= n:
                bus.send_message(dbus.lowlevel.SignalMessage(PATH, IFACE, "Done"))
                return False
            s = dbus.lowlevel.SignalMessage(PATH, IFACE, "Tick")
            if pad:
                s.append(dbus.UInt32(state["i"]), "x" * pad, signature="us")
            else:
                s.append(dbus.UInt32(state["i"]), signature="u")
            bus.send_message(s)
            bus.flush()
            state["i"] += 1
            return True
        GLib.timeout_add(ms, tick)
    elif m == "WriteFD":
        fd, data = msg.get_args_list(byte_arrays=True)
        raw = fd.take()
        os.write(raw, bytes(data))
        os.close(raw)
        reply(msg)
    else:
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
    return dbus.lowlevel.HANDLER_RESULT_HANDLED

bus.add_message_filter(on_message)
bus.request_name("org.heartd.Test")
GLib.MainLoop().run()
"""#
