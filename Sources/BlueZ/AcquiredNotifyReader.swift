internal import CLinux
import DBus
import Foundation
import Glibc
import Posix
import Synchronization

/// One value read from an `AcquireNotify` socket, with the time the kernel queued it.
public struct NotifyDatagram: Sendable {
    public var bytes: [UInt8]
    public var wall: Date
    public var monotonic: Double

    public init(bytes: [UInt8], wall: Date, monotonic: Double) {
        self.bytes = bytes
        self.wall = wall
        self.monotonic = monotonic
    }
}

/// Reads an `AcquireNotify` socket (SOCK_SEQPACKET: one notification per datagram) on its capture client's one
/// notify thread (`AcquiredNotifyPoller`, an epoll set named `heartd-notify`).
///
/// A thread per socket cost one wake-up per notification; the shared thread pauses after a busy wake-up
/// (`ReadBatching`) and reads every socket that became ready meanwhile, each with `recvmmsg` until EAGAIN. Each
/// datagram keeps its own kernel timestamp (`SO_TIMESTAMPNS`), so batching does not move arrival times.
public final class AcquiredNotifyReader: Sendable {
    private let token: UInt64
    private let poller: AcquiredNotifyPoller

    /// Takes ownership of `fd` and starts reading it. `onValues` runs on the notify thread with the datagrams of
    /// one read, oldest first; `onClosed` (on the notify thread) when BlueZ closed the socket, after its last
    /// values. A slow callback delays the other sockets by its duration.
    public init(poller: AcquiredNotifyPoller, fd: Int32, mtu: Int, batching: ReadBatching,
         onValues: @escaping @Sendable ([NotifyDatagram]) -> Void, onClosed: @escaping @Sendable () -> Void) {
        let stamped = Self.enableTimestamps(fd)
        self.poller = poller
        token = poller.register(fd: fd, mtu: max(mtu, 512), stamped: stamped, batching: batching,
                                                     onValues: onValues, onClosed: onClosed)
    }

    /// Asks the kernel to stamp each datagram as it is queued (`SO_TIMESTAMPNS`). Datagrams queued before
    /// this call get the time they are read.
    public static func enableTimestamps(_ fd: Int32) -> Bool {
        clinux_enable_timestampns(fd) == 0
    }

    /// Stops reading and closes the socket (BlueZ then ends the notify session). After it returns no `onValues`
    /// or `onClosed` of this reader runs (called from its own callback: none after that callback). Idempotent.
    public func close() {
        poller.close(token)
    }
}
