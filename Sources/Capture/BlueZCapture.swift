import BlueZ
import DBus
import Logging
import SourceEvents

/// The BlueZ capture client: finds, connects and subscribes to heart-rate sensors per `CapturePolicy`
/// and reports `SourceEvent`s (the events replay and the simulator emit too). One instance per bus connection.
///
/// ```swift
/// let capture = BlueZCapture(connection: bus, policy: policy, logger: logger)
/// async let _ = capture.run()          // until cancelled
/// for await event in capture.events { … }
/// ```
public final class BlueZCapture: Sendable {
    /// Every event, in order per device (empty when an `onEvent` handler was given). Finishes when `run()` returns.
    public let events: AsyncStream<SourceEvent>
    private let continuation: AsyncStream<SourceEvent>.Continuation
    private let manager: CaptureManager
    private let board: StatusBoard

    /// - Parameter onEvent: if given, every event is passed to it synchronously instead of `events`:
    ///   notifications on the D-Bus queue or the notify-socket queue, the others from a session task.
    ///   It saves one thread wake-up per notification; keep it short and non-blocking.
    public init(connection: DBusConnection, policy: CapturePolicy, logger: Logger,
                onEvent: (@Sendable (SourceEvent) -> Void)? = nil) {
        let (events, continuation) = AsyncStream<SourceEvent>.makeStream()
        self.events = events
        self.continuation = continuation
        board = StatusBoard()
        let router = NotifyRouter(emit: onEvent ?? { continuation.yield($0) })
        manager = CaptureManager(connection: connection, policy: policy, logger: logger, router: router, board: board)
    }

    /// Runs until the calling task is cancelled or the bus connection ends. On the way out it
    /// unsubscribes (and disconnects, if the policy says so) and emits the last `disconnected` events.
    public func run() async throws {
        defer { continuation.finish() }
        try await manager.run()
    }

    /// Replaces the allow-list at run time; devices no longer allowed are let go, new ones captured.
    public func setAllowList(_ allowList: Set<String>) async {
        await manager.setAllowList(allowList)
    }

    /// Scans for `seconds` and lists the heart-rate sensors in range that capture does not take (`nearby`).
    public func nearby(seconds: Double) async throws(NearbyError) -> [NearbySensor] {
        try await manager.nearby(seconds: seconds)
    }

    /// Per-device state and counters, plus bluetoothd restarts.
    public func status() -> CaptureStatus { board.snapshot }
}
