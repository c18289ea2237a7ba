import Foundation
import HeartQueries
import LiveFeed
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// One observer of the live feed (`LiveSource.observe`), shared by every browser: each update is turned into JSON
/// once, where the feed makes it (one buffer, shared), and handed to each browser's `LiveSink` without waiting, if the browser's `LiveFilter` admits it. Updates
/// are gathered for `window` after the first (32 sensors' staggered notifications make a few messages per window) and
/// handed over together: one hand-over, one write and one flush per browser per window instead of per message. A
/// browser whose sink is `clientBuffer` messages behind is dropped (its connection closed): a slow or stuck browser
/// costs at most `clientBuffer` messages here, and nothing in heartd.
public final class LiveFanout: Service, Sendable {
    public let source: any LiveSource
    public let hrmax: HRMaxTable
    public let clientBuffer: Int
    public let people: EffortPeople
    /// How long updates are gathered before they go out (zero: each at once).
    public let window: Duration
    private let logger: Logger
    private let state = Mutex(State())
    /// Wakes the sender at the first message of a window.
    private let windows = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    private struct State {
        var clients: [Int: Client] = [:]
        /// The clients' distinct filters, each with how many clients hold it: an update is framed if one admits it.
        var filters: [LiveFilter: Int] = [:]
        var nextID = 0
        var activeSessions: Set<UUID> = []
        var finished = false
        var dropped = 0
        /// Each sensor's effort since the session started (`EffortTally`), by address.
        var tallies: [String: EffortTally] = [:]
        /// The messages gathered in this window, in order.
        var pending: [(LiveMessage, ByteBuffer)] = []

        /// Forgets a client and, with its last holder, its filter.
        mutating func remove(_ id: Int) {
            guard let client = clients.removeValue(forKey: id) else { return }
            filters[client.filter, default: 1] -= 1
            if filters[client.filter] == 0 { filters[client.filter] = nil }
        }
    }

    private struct Client {
        let filter: LiveFilter
        let sink: any LiveSink
        /// The pending messages that predate its snapshot (it is not sent them).
        var skip: Int
    }

    public init(source: any LiveSource, hrmax: HRMaxTable, clientBuffer: Int, people: EffortPeople = EffortPeople(),
                window: Duration = .milliseconds(150), logger: Logger) {
        self.source = source
        self.hrmax = hrmax
        self.people = people
        self.clientBuffer = clientBuffer
        self.window = window
        self.logger = logger
    }

    /// Browsers connected now.
    public var clientCount: Int { state.withLock { $0.clients.count } }
    /// Browsers dropped for reading too slowly since start.
    public var droppedCount: Int { state.withLock { $0.dropped } }
    /// Messages gathered in the current window, not sent yet.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    public func run() async throws {
        // Each update is turned into frames where the feed makes it (`observe`: no task woken per update); only the
        // first of a window wakes this task, which waits out the window and hands over what gathered.
        let observation = source.observe { [weak self] update in self?.gather(update) }
        // After `observe`: this set is at least as new as any update the handler has already taken.
        let sessions = Set(source.snapshot().activeSessions.map(\.uuid))
        state.withLock { $0.activeSessions = sessions }
        // `cancelWhenGracefulShutdown`, not the sequence's `cancelOnGracefulShutdown()`: that merges every window
        // with the shutdown signal (a task hop each).
        await cancelWhenGracefulShutdown {
            for await _ in self.windows.stream {
                // While messages keep coming, a window follows the last without waiting to be woken: one wake a
                // window, the timer's (a message arriving meanwhile only leaves a mark on `windows`).
                repeat {
                    if self.window > .zero { try? await Task.sleep(for: self.window) }
                } while self.broadcast() && !Task.isCancelled
            }
        }
        source.unobserve(observation)
        let clients = state.withLock { state in
            state.finished = true
            defer {
                state.clients = [:]
                state.filters = [:]
            }
            return Array(state.clients.values)
        }
        for client in clients { client.sink.finish() }
    }

    /// One update: its messages, framed once if some browser's filter admits them (most want no beats), join the
    /// window; the first of a window wakes the sender.
    private func gather(_ update: LiveUpdate) {
        let messages = messages(for: update)  // always: it keeps the session list for the next difference
        let filters = state.withLock { Array($0.filters.keys) }
        let frames = messages.filter { message in filters.contains { $0.admits(message) } }.map { ($0, $0.frame()) }
        guard !frames.isEmpty else { return }
        let first = state.withLock { state in
            defer { state.pending += frames }
            return state.pending.isEmpty
        }
        if first { windows.continuation.yield() }
    }

    /// Registers a browser read through an `AsyncStream` (Server-Sent Events, tests): its queue starts with the
    /// current snapshot (of the filter's device only, if it names one). `drop` closes its connection when it falls
    /// `clientBuffer` messages behind.
    public func subscribe(_ filter: LiveFilter = .everything, drop: @escaping @Sendable () -> Void) -> AsyncStream<ByteBuffer> {
        let (stream, sink) = StreamSink.make(limit: clientBuffer, drop: drop)
        guard let id = subscribe(filter, sink: sink) else {
            sink.continuation.finish()
            return stream
        }
        sink.continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return stream
    }

    /// Registers a browser's sink and sends it the current snapshot (of the filter's device only, if it names one);
    /// nil once the service has stopped. `unsubscribe` with the id when its connection ends.
    public func subscribe(_ filter: LiveFilter = .everything, sink: any LiveSink) -> Int? {
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            state.nextID += 1
            state.clients[state.nextID] = Client(filter: filter, sink: sink, skip: state.pending.count)
            state.filters[filter, default: 0] += 1
            return state.nextID
        }
        if id != nil { _ = sink.send([snapshotMessage(device: filter.device).frame()]) }
        return id
    }

    /// Forgets a browser (its connection ended).
    public func unsubscribe(_ id: Int) {
        state.withLock { $0.remove(id) }
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

    /// Hands the window's messages to every browser whose filter admits them; drops those too far behind. False
    /// when the window had none.
    @discardableResult
    private func broadcast() -> Bool {
        // The messages and the browsers at one instant: a browser's `skip` counts these very messages.
        let (frames, clients) = state.withLock { state in
            defer {
                state.pending = []
                for id in state.clients.keys { state.clients[id]?.skip = 0 }
            }
            return (state.pending, Array(state.clients))
        }
        guard !frames.isEmpty else { return false }
        // Clients with the same filter and the whole window get the same frames: chosen once.
        var admittedBy: [LiveFilter: [ByteBuffer]] = [:]
        for (id, client) in clients {
            let admitted: [ByteBuffer]
            if client.skip == 0, let same = admittedBy[client.filter] {
                admitted = same
            } else {
                admitted = frames.dropFirst(client.skip).filter { client.filter.admits($0.0) }.map(\.1)
                if client.skip == 0 { admittedBy[client.filter] = admitted }
            }
            guard !admitted.isEmpty, client.sink.send(admitted) == .behind else { continue }
            logger.warning("web client too slow, dropped", metadata: ["client": "\(id)", "buffer": "\(clientBuffer)"])
            state.withLock { state in
                state.dropped += 1
                state.remove(id)
            }
            client.sink.drop()
        }
        return true
    }
}
