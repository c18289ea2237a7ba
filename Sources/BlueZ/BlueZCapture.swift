import DBus
import Logging

/// The BlueZ capture client: finds, connects and subscribes to heart-rate sensors per `CapturePolicy`
/// and reports `CaptureEvent`s. One instance per bus connection.
///
/// ```swift
/// let capture = BlueZCapture(connection: bus, policy: policy, logger: logger)
/// async let _ = capture.run()          // until cancelled
/// for await event in capture.events { … }
/// ```
public final class BlueZCapture: Sendable {
    /// Every event, in order per device. Finishes when `run()` returns.
    public let events: AsyncStream<CaptureEvent>
    private let continuation: AsyncStream<CaptureEvent>.Continuation
    private let manager: CaptureManager
    private let board: StatusBoard

    public init(connection: DBusConnection, policy: CapturePolicy, logger: Logger) {
        (events, continuation) = AsyncStream<CaptureEvent>.makeStream()
        board = StatusBoard()
        let router = NotifyRouter(events: continuation)
        manager = CaptureManager(connection: connection, policy: policy, logger: logger, router: router, board: board)
    }

    /// Runs until the calling task is cancelled or the bus connection ends. On the way out it
    /// unsubscribes (and disconnects, if the policy says so) and emits the last `disconnected` events.
    public func run() async throws {
        defer { continuation.finish() }
        try await manager.run()
    }

    /// Per-device state and counters, plus bluetoothd restarts.
    public func status() -> CaptureStatus { board.snapshot }
}
