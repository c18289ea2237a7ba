internal import CDBus
import Dispatch
import Foundation
import Logging
import Synchronization

/// A connection to a message bus, driven by Dispatch.
///
/// Every libdbus call on the connection runs on one serial `DispatchQueue`: a read source on the
/// socket reads and dispatches, libdbus timeouts run as `DispatchSourceTimer`s (without them a
/// pending call never times out), and replies resume the awaiting task from that queue.
///
/// Call `close()` when done; the read source keeps the connection alive until then.
public final class DBusConnection: @unchecked Sendable {
    // @unchecked: `raw` and the Dispatch sources are only touched on `queue`; the mutable state read
    // from other threads is in `shared`.
    let queue: DispatchQueue
    let logger: Logger
    /// Only valid on `queue` while not closed.
    var raw: OpaquePointer?
    /// One end of the reader thread's wake-up socket pair (-1 when there is no reader); only touched on `queue`.
    var readerWakeFD: Int32 = -1
    /// True while `readAndDispatch` reads; its own drain follows, so libdbus's "data remains" needs no extra block.
    var readingInline = false
    var drainScheduled = false
    /// libdbus's read watch (`installWatches`); nil before it is added and once libdbus removed it. Only on `queue`.
    var readWatch: OpaquePointer?

    /// What other threads than `queue`'s read and write: subscriptions, the tap, the connected flag.
    struct Shared {
        var subscriptions: [UInt64: SignalSubscriber] = [:] {
            didSet { subscriberList = Array(subscriptions.values) }
        }
        /// `subscriptions.values`, rebuilt on change so the per-message path copies nothing.
        var subscriberList: [SignalSubscriber] = []
        var nextSubscriptionID: UInt64 = 1
        var connected = true
        var propertyTap: PropertyValueTap?
        var disconnectWaiters: [CheckedContinuation<Void, Never>] = []
    }
    let shared = Mutex(Shared())

    /// This connection's unique bus name (e.g. `:1.42`).
    public let uniqueName: String
    /// How the reader thread batches reads on a busy bus.
    public let batching: ReadBatching
    /// Method calls waiting for a reply: the reader never pauses while there is one.
    let pendingCalls = Atomic<Int>(0)
    let wakeups = Atomic<Int>(0)
    /// Times the reader thread woke up to read (for tests and benchmarks: batching keeps it below the message count).
    public var readerWakeups: Int { wakeups.load(ordering: .relaxed) }

    /// The system bus address: `DBUS_SYSTEM_BUS_ADDRESS` if set, else the standard socket.
    public static var systemBusAddress: String {
        if let env = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"], !env.isEmpty { return env }
        return "unix:path=/var/run/dbus/system_bus_socket"
    }

    /// Connects to the system bus (honours `DBUS_SYSTEM_BUS_ADDRESS`).
    public static func system(logger: Logger, batching: ReadBatching = .off) async throws -> DBusConnection {
        try await connect(address: systemBusAddress, logger: logger, batching: batching)
    }

    /// Connects to a bus address (`unix:path=...`), registers (Hello) and starts dispatching.
    /// The blocking libdbus connect runs on the connection's own queue, not on the caller's thread.
    public static func connect(address: String, logger: Logger, batching: ReadBatching = .off) async throws -> DBusConnection {
        let queue = DispatchQueue(label: "heartd.dbus")
        let box: RawBox = try await withCheckedThrowingContinuation { cont in
            queue.async {
                do { cont.resume(returning: try openAndRegister(address)) } catch { cont.resume(throwing: error) }
            }
        }
        let connection = DBusConnection(raw: box.raw, uniqueName: box.name, queue: queue, logger: logger,
                                        batching: batching)
        queue.async { connection.startLoop() }
        return connection
    }

    private init(raw: OpaquePointer, uniqueName: String, queue: DispatchQueue, logger: Logger, batching: ReadBatching) {
        self.raw = raw
        self.batching = batching
        self.uniqueName = uniqueName
        self.queue = queue
        var logger = logger
        logger[metadataKey: "dbus.name"] = .string(uniqueName)
        self.logger = logger
    }

    struct RawBox: @unchecked Sendable {  // moves the pointer from the queue to the initializer once
        let raw: OpaquePointer
        let name: String
    }

    private static func openAndRegister(_ address: String) throws -> RawBox {
        _ = dbus_threads_init_default()
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        guard let c = dbus_connection_open_private(address, &err) else {
            throw takeError(&err) ?? DBusError(code: .connectFailed, name: "org.freedesktop.DBus.Error.Failed",
                                              message: "cannot open \(address)")
        }
        dbus_connection_set_exit_on_disconnect(c, 0)
        guard dbus_bus_register(c, &err) != 0, let namePtr = dbus_bus_get_unique_name(c) else {
            let e = takeError(&err)
            dbus_connection_close(c)
            dbus_connection_unref(c)
            throw e ?? DBusError(code: .connectFailed, name: "org.freedesktop.DBus.Error.Failed",
                                 message: "Hello failed on \(address)")
        }
        return RawBox(raw: c, name: String(cString: namePtr))
    }

    static func takeError(_ err: inout CDBus.DBusError) -> DBusError? {
        guard cdbus_error_is_set(&err) != 0 else { return nil }
        defer { dbus_error_free(&err) }
        let name = err.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        let message = err.message.map { String(cString: $0) } ?? ""
        var e = DBusError(name: name, message: message)
        if e.code == .other && name == "org.freedesktop.DBus.Error.Failed" { e.code = .connectFailed }
        return e
    }

    /// False once the connection was lost or closed.
    public var isConnected: Bool { shared.withLock { $0.connected } }

    /// Returns when the connection is lost or closed.
    public func waitUntilDisconnected() async {
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            let resumeNow = shared.withLock { s -> Bool in
                if !s.connected { return true }
                s.disconnectWaiters.append(cont)
                return false
            }
            if resumeNow { cont.resume() }
        }
    }

    /// Closes the connection: pending calls fail with `.disconnected`, signal streams finish.
    public func close() {
        queue.async { self.shutdown(reason: "closed") }
    }
}
