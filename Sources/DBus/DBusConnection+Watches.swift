internal import CDBus
import Glibc

/// libdbus's read watch, for the reader thread: its own poll has just said the socket is readable, so it has
/// libdbus read at once (`dbus_watch_handle`) instead of `dbus_connection_read_write`, which polls the socket
/// again first — a system call per message. The watch functions only record the watch: the reader thread is
/// the one that polls the socket, and an outgoing message libdbus could not write at once is still flushed
/// after the next read, as `read_write` did (see `readAndDispatch`). Everything here runs on `queue`.
extension DBusConnection {
    func installWatches(_ raw: OpaquePointer, _ me: UnsafeMutableRawPointer) {
        let add: DBusAddWatchFunction = { watch, user in
            guard let watch, let user else { return 1 }
            if dbus_watch_get_flags(watch) & DBUS_WATCH_READABLE.rawValue != 0 {
                Unmanaged<DBusConnection>.fromOpaque(user).takeUnretainedValue().readWatch = watch
            }
            return 1
        }
        let remove: DBusRemoveWatchFunction = { watch, user in
            guard let watch, let user else { return }
            let connection = Unmanaged<DBusConnection>.fromOpaque(user).takeUnretainedValue()
            if connection.readWatch == watch { connection.readWatch = nil }  // freed by libdbus after this
        }
        _ = dbus_connection_set_watch_functions(raw, add, remove, nil, me, nil)
    }

    /// Reads what the socket holds into libdbus's queue (through the read watch when there is one). `alive` is
    /// false when `read_write` found the connection lost (the caller checks `dbus_connection_get_is_connected`
    /// as well); `drained` is true when libdbus read until the socket was empty. libdbus reads until `recvmsg`
    /// fails with EAGAIN or it has read 2 KiB: errno, cleared before, then tells the two apart, and only a read
    /// cut off at 2 KiB needs a poll to know whether more is waiting.
    func readSocket(_ raw: OpaquePointer) -> (alive: Bool, drained: Bool) {
        guard let watch = readWatch else { return (dbus_connection_read_write(raw, 0) != 0, false) }
        errno = 0
        _ = dbus_watch_handle(watch, DBUS_WATCH_READABLE.rawValue)  // false only when out of memory
        let drained = errno == EAGAIN || errno == EWOULDBLOCK
        // An outgoing message libdbus could not write whole waits for the next iteration: give it one.
        if dbus_connection_has_messages_to_send(raw) != 0 { return (dbus_connection_read_write(raw, 0) != 0, false) }
        return (true, drained)
    }
}
