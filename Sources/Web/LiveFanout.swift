import Foundation
import HeartQueries
import LiveFeed
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// One subscription to the live feed, shared by every browser: each update is turned into JSON once (one buffer,
/// shared) and handed to each browser's own bounded queue without waiting, if the browser's `LiveFilter` admits it. A browser whose queue is full is dropped (its connection
/// closed): a slow or stuck browser costs at most `clientBuffer` messages here, and nothing in heartd.
public final class LiveFanout: Service, Sendable {
    public let source: any LiveSource
    public let hrmax: HRMaxTable
    public let clientBuffer: Int
    public let people: EffortPeople
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var clients: [Int: Client] = [:]
        var nextID = 0
        var activeSessions: Set<UUID> = []
        var finished = false
        var dropped = 0
        /// Each sensor's effort since the session started (`EffortTally`), by address.
        var tallies: [String: EffortTally] = [:]
    }

    private struct Client {
        let filter: LiveFilter
        let continuation: AsyncStream<ByteBuffer>.Continuation
        let drop: @Sendable () -> Void
    }

    public init(source: any LiveSource, hrmax: HRMaxTable, clientBuffer: Int, people: EffortPeople = EffortPeople(), logger: Logger) {
        self.source = source
        self.hrmax = hrmax
        self.people = people
        self.clientBuffer = clientBuffer
        self.logger = logger
    }

    /// Browsers connected now.
    public var clientCount: Int { state.withLock { $0.clients.count } }
    /// Browsers dropped for reading too slowly since start.
    public var droppedCount: Int { state.withLock { $0.dropped } }

    public func run() async throws {
        let updates = source.updates(buffer: 4096)
        state.withLock { $0.activeSessions = Set(source.snapshot().activeSessions.map(\.uuid)) }
        for await update in updates.cancelOnGracefulShutdown() {
            let messages = messages(for: update)  // always: it keeps the session list for the next difference
            if clientCount > 0 { broadcast(messages.map { ($0, $0.frame()) }) }
        }
        let clients = state.withLock { state in
            state.finished = true
            defer { state.clients = [:] }
            return Array(state.clients.values)
        }
        for client in clients { client.continuation.finish() }
    }

    /// Registers a browser: its queue starts with the current snapshot (of the filter's device only, if it names
    /// one). `drop` closes its connection when it falls `clientBuffer` messages behind.
    public func subscribe(_ filter: LiveFilter = .everything, drop: @escaping @Sendable () -> Void) -> AsyncStream<ByteBuffer> {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .bufferingNewest(clientBuffer))
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            state.nextID += 1
            state.clients[state.nextID] = Client(filter: filter, continuation: continuation, drop: drop)
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        continuation.yield(snapshotMessage(device: filter.device).frame())
        return stream
    }

    /// The whole picture now (or one device's), as the first message of every browser and `/api/devices`.
    public func snapshotMessage(device: String? = nil) -> LiveMessage {
        let snapshot = source.snapshot()
        let tallies = state.withLock { $0.tallies }
        let devices = snapshot.devices.filter { device == nil || $0.address.uppercased() == device }
        return .snapshot(daemonReachable: snapshot.daemonReachable,
                         devices: devices.map { DeviceView($0, hrmax: hrmax, effort: tallies[$0.address]) },
                         sessions: snapshot.activeSessions.map(SessionView.init))
    }

    /// The browser messages of one update; `sessions` also yields `session-started` / `session-stopped` for the
    /// difference from the previous list.
    func messages(for update: LiveUpdate) -> [LiveMessage] {
        switch update {
        case .daemon(let reachable, let reason):
            return [.daemon(reachable: reachable, reason: reason)]
        case .device(let device):
            return [.device(DeviceView(device, hrmax: hrmax, effort: tally(device)))]
        case .beats(let address, let beats):
            return [.beats(address: address, beats: beats.map(BeatView.init))]
        case .sessions(let sessions):
            let now = Set(sessions.map(\.uuid))
            let previous = state.withLock { state in
                defer { state.activeSessions = now }
                if !now.subtracting(state.activeSessions).isEmpty { state.tallies = [:] }  // a session started: effort from zero
                return state.activeSessions
            }
            var messages: [LiveMessage] = sessions.filter { !previous.contains($0.uuid) }.map { .sessionStarted(SessionView($0)) }
            messages += previous.subtracting(now).sorted { $0.uuidString < $1.uuidString }.map { .sessionStopped(uuid: $0) }
            messages.append(.sessions(sessions.map(SessionView.init)))
            return messages
        }
    }

    /// The device's effort tally with its latest heart rate counted (or paused when it is not streaming).
    private func tally(_ device: LiveDevice) -> EffortTally {
        let at = device.lastNotification ?? Date()
        return state.withLock { state in
            let person = people.person(for: device, hrmax: hrmax)
            var tally = state.tallies[device.address] ?? EffortTally(person: person)
            tally.wornBy(person)
            if device.state == .streaming, let bpm = device.bpm {
                tally.add(bpm: bpm, at: at)
            } else {
                tally.pause(at: at)
            }
            state.tallies[device.address] = tally
            return tally
        }
    }

    private func broadcast(_ frames: [(LiveMessage, ByteBuffer)]) {
        guard !frames.isEmpty else { return }
        let clients = state.withLock { Array($0.clients) }
        for (id, client) in clients {
            for (message, frame) in frames where client.filter.admits(message) {
                if case .dropped = client.continuation.yield(frame) {
                    logger.warning("web client too slow, dropped", metadata: ["client": "\(id)", "buffer": "\(clientBuffer)"])
                    state.withLock { $0.dropped += 1 }
                    client.continuation.finish()
                    client.drop()
                    break
                }
            }
        }
    }

    private func remove(_ id: Int) {
        _ = state.withLock { $0.clients.removeValue(forKey: id) }
    }
}
