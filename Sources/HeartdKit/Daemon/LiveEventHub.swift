import BlueZ
import Control
import Foundation
import HealthModel
import HeartQueries
import Ingest
import Logging
import Synchronization
import Systemd
import LogFields

/// Fans the pipeline's live events out to `watch` clients and writes the key ones to the journal with their
/// MESSAGE_ID. Called synchronously on the pipeline: it only yields into bounded per-watcher buffers (a slow
/// watcher loses its oldest events, never slows capture; the socket server drops it if it stops reading).
public final class LiveEventHub: Sendable {
    private let watchers = Mutex<[UUID: AsyncStream<ControlEvent>.Continuation]>([:])
    /// The watchers of one session (`watch` with `session`): told when it ends.
    private let sessionWatchers = Mutex<[UUID: UUID]>([:])
    let logger: Logger
    /// Events buffered per watcher before the oldest are dropped.
    public static let watcherBuffer = 1024

    public init(logger: Logger) {
        self.logger = logger
    }

    public var watcherCount: Int { watchers.withLock { $0.count } }

    /// A new watcher's stream; it unsubscribes itself when the consumer goes away.
    public func subscribe(device: String? = nil) -> AsyncStream<ControlEvent> {
        filtered(register(), device: device, devices: nil, untilSessionEnds: false)
    }

    /// The live events of a session's devices (every device when it names none; `device` narrows it further) until
    /// the session ends: then `session-ended` and the stream's end.
    func subscribe(session: Session, device: String?) -> AsyncStream<ControlEvent> {
        let id = UUID()
        sessionWatchers.withLock { $0[id] = session.uuid }
        let devices = session.devices.isEmpty ? nil : Set(session.devices.map { $0.uppercased() })
        return filtered(register(id: id), device: device, devices: devices, untilSessionEnds: true)
    }

    /// Tells the watchers of `session` that it ended (`end`: its end date) and ends their streams.
    func endSession(_ session: UUID, at end: Date?) {
        let ids = sessionWatchers.withLock { $0.filter { $0.value == session }.map(\.key) }
        guard !ids.isEmpty else { return }
        let event = WatchMessage.sessionEnded(.init(session: session, end: end)).controlEvent
        for c in watchers.withLock({ w in ids.compactMap { w[$0] } }) { c.yield(event) }
    }

    /// An event the daemon makes itself (`session-started`, `session-stopped`, `dfa-alpha1`, `people-changed`) to every watcher; a
    /// filtered watcher, which follows devices, gets only those of its devices (no session event).
    func publish(_ message: WatchMessage) {
        let snapshot = watchers.withLock { Array($0.values) }
        guard !snapshot.isEmpty else { return }
        let control = message.controlEvent.encodedOnce()
        for c in snapshot { c.yield(control) }
    }

    /// `people-changed` to every watcher.
    func publishPeopleChanged(at: Date = Date()) {
        publish(.peopleChanged(.init(at: at)))
    }

    private func register(id: UUID = UUID()) -> AsyncStream<ControlEvent> {
        let (stream, continuation) = AsyncStream<ControlEvent>.makeStream(bufferingPolicy: .bufferingNewest(Self.watcherBuffer))
        continuation.onTermination = { [weak self] _ in
            _ = self?.watchers.withLock { $0.removeValue(forKey: id) }
            _ = self?.sessionWatchers.withLock { $0.removeValue(forKey: id) }
        }
        watchers.withLock { $0[id] = continuation }
        return stream
    }

    /// Only the events of `device` and of `devices` (nil: any); `session-ended` passes and ends the stream.
    private func filtered(_ stream: AsyncStream<ControlEvent>, device: String?, devices: Set<String>?,
                          untilSessionEnds: Bool) -> AsyncStream<ControlEvent> {
        guard device != nil || devices != nil || untilSessionEnds else { return stream }
        let device = device?.uppercased()
        return AsyncStream { out in
            let task = Task {
                for await event in stream {
                    if event.name == WatchEvent.sessionEnded.rawValue {
                        out.yield(event)
                        break
                    }
                    let address = event.fields["device"]?.stringValue?.uppercased()
                    if let device, address != device { continue }
                    if let devices, !devices.contains(address ?? "") { continue }
                    out.yield(event)
                }
                out.finish()
            }
            out.onTermination = { _ in task.cancel() }
        }
    }

    public func publish(_ event: LiveEvent) {
        journal(event)
        let snapshot = watchers.withLock { Array($0.values) }
        guard !snapshot.isEmpty else { return }
        let control = Self.controlEvent(event).encodedOnce()
        for c in snapshot { c.yield(control) }
    }

    /// Ends every watcher's stream (daemon shutdown).
    public func finishAll() {
        let all = watchers.withLock { w in defer { w.removeAll() }; return Array(w.values) }
        for c in all { c.finish() }
    }

    private func journal(_ event: LiveEvent) {
        switch event {
        case .connected(let address, let device, _):
            var fields: Logger.Metadata = [
                LogField.messageID.key: "\(MessageID.deviceConnected.hex)", LogField.device.key: "\(address)",
                "name": "\(device?.name ?? "")",
            ]
            if let adapter = device?.metadata[BlueZMetadataKey.adapter] { fields[LogField.adapter.key] = "\(adapter)" }
            logger.notice("device connected", metadata: fields)
        case .disconnected(let address, let reason, _):
            logger.notice("device disconnected", metadata: [
                LogField.messageID.key: "\(MessageID.deviceDisconnected.hex)", LogField.device.key: "\(address)", "reason": "\(reason)",
            ])
        case .seriesFinished(let address, let uuid, let type, let reason):
            logger.info("series finished", metadata: [
                LogField.messageID.key: "\(MessageID.seriesFinished.hex)", LogField.device.key: "\(address)",
                LogField.series.key: "\(uuid)", "type": "\(type)", "reason": "\(reason.rawValue)",
            ])
        case .beats(let address, let beats):
            for b in beats where b.precededByGap {
                logger.info("beats may be missing before this beat", metadata: [
                    LogField.messageID.key: "\(MessageID.gap.hex)", LogField.device.key: "\(address)", "at": "\(ExportDates.iso(b.time))",
                ])
            }
        case .heartRate, .battery, .contact:
            break
        }
    }

    static func controlEvent(_ event: LiveEvent) -> ControlEvent {
        WatchMessage(event).controlEvent
    }
}
