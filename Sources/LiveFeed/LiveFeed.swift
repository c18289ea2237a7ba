import Control
import Foundation
import HeartQueries
import Logging
import Posix
import ServiceLifecycle
import Synchronization
import Timers

/// A network service's view of heartd: follows the control socket (`status`, then `watch`), keeps the live picture
/// (`LiveState`) and hands every change to its subscribers. When heartd is away (not started, restarting) it says
/// so once and reconnects with back-off; it never asks heartd for more than a status every `statusInterval` and one
/// event stream. Subscribers are bounded: one that falls behind loses its oldest updates, never slows the others.
public final class LiveFeed: Service, Sendable {
    public let settings: LiveFeedSettings
    private let logger: Logger
    private let state: Mutex<LiveState>
    private let subscribers = Mutex<[UUID: Subscriber]>([:])
    private let unreadable = Atomic<Int>(0)

    /// A stream's continuation (`updates`) or a handler called in place (`observe`).
    private enum Subscriber {
        case stream(AsyncStream<LiveUpdate>.Continuation)
        case handler(@Sendable (LiveUpdate) -> Void)
    }

    public init(settings: LiveFeedSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        state = Mutex(LiveState(settings: settings))
    }

    /// `watch` lines heartd sent that this client could not read (not an event, or fields of another shape):
    /// each was skipped and logged.
    public var unreadableEventCount: Int { unreadable.load(ordering: .relaxed) }

    /// The live picture now.
    public func snapshot() -> LiveSnapshot { state.withLock { $0.snapshot } }

    /// Every change from now on; a consumer `buffer` updates behind loses the oldest.
    public func updates(buffer: Int = 1024) -> AsyncStream<LiveUpdate> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<LiveUpdate>.makeStream(bufferingPolicy: .bufferingNewest(max(1, buffer)))
        continuation.onTermination = { [weak self] _ in _ = self?.subscribers.withLock { $0.removeValue(forKey: id) } }
        subscribers.withLock { $0[id] = .stream(continuation) }
        return stream
    }

    /// Every change from now on handed to `handler` as it is made, in order, on the thread that made it (the
    /// control socket's reading thread, the feed's clock) with the feed's state locked: no task is woken per
    /// change. `handler` must be quick and must not call back into the feed (`snapshot()` would deadlock). Until
    /// `unobserve` with the returned id, or the feed stops.
    public func observe(_ handler: @escaping @Sendable (LiveUpdate) -> Void) -> UUID {
        let id = UUID()
        subscribers.withLock { $0[id] = .handler(handler) }
        return id
    }

    /// Stops handing changes to the `observe` handler of `id`.
    public func unobserve(_ id: UUID) {
        _ = subscribers.withLock { $0.removeValue(forKey: id) }
    }

    /// Follows heartd until the service group shuts down (or the task is cancelled).
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var backoff = Backoff(initial: self.settings.minBackoff.seconds, maximum: self.settings.maxBackoff.seconds,
                                  factor: 2, jitter: 0.1)
            var lastReason: String?
            while !Task.isCancelled {
                let reason: String
                do {
                    try await self.follow { backoff.reset() }
                    reason = "heartd ended the event stream"
                } catch is CancellationError {
                    break
                } catch {
                    reason = "\(error)"
                }
                if Task.isCancelled { break }
                if reason != lastReason {
                    self.logger.warning("heartd's control socket does not answer; retrying",
                                        metadata: ["socket": "\(self.settings.socketPath)", "error": "\(reason)"])
                    lastReason = reason
                }
                self.publish { $0.lost(reason: reason, now: Date()) }
                try? await Task.sleep(for: .seconds(backoff.next()))
            }
        }
        // Finished outside the lock: `finish()` runs the stream's `onTermination`, which takes it.
        let ending = subscribers.withLock { s in
            defer { s.removeAll() }
            return Array(s.values)
        }
        for case .stream(let c) in ending { c.finish() }
    }

    /// One connection's life: the event stream first (so nothing between the status and it is missed), then the
    /// status, then events and a one-second clock until either ends. Each event is decoded and applied on the
    /// client's reading thread as it is read (no task hop per event); those read before the status is applied wait
    /// for it, in order.
    private func follow(connected: () -> Void) async throws {
        let watcher = try ControlClient(path: settings.socketPath)
        let caller = try ControlClient(path: settings.socketPath)
        defer {
            watcher.close()
            caller.close()
        }
        // Lines read before the status is applied wait for it; none is applied once this connection is over.
        let gate = Mutex(EventGate.holding([]))
        defer { gate.withLock { $0 = .closed } }
        let events = try await watcher.streamLines(WatchCall.self, WatchCall.Params()) { [self] line in
            // Applied under the gate's lock: a line read as the connection ends never lands after `lost`.
            gate.withLock { gate in
                switch gate {
                case .holding(let lines): gate = .holding(lines + [line])
                case .passing: receive(line)
                case .closed: break
                }
            }
        }
        let status = try await caller.call(StatusCall.self)
        publish { $0.apply(status: status, now: Date()) }
        gate.withLock { gate in
            if case .holding(let lines) = gate { for line in lines { receive(line) } }
            gate = .passing
        }
        logger.info("following heartd", metadata: ["socket": "\(settings.socketPath)", "version": "\(status.version)"])
        connected()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await _ in events {}
            }
            group.addTask { [self] in
                var sinceStatus = Duration.zero
                while true {
                    try await Task.sleep(for: .seconds(1))
                    sinceStatus += .seconds(1)
                    publish { $0.tick(now: Date()) }
                    if sinceStatus >= settings.statusInterval || state.withLock({ $0.statusDue }) {
                        let status = try await caller.call(StatusCall.self)
                        publish { $0.apply(status: status, now: Date()) }
                        sinceStatus = .zero
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Where a connection's `watch` lines go: held until its status is applied, then applied as read, then dropped.
    private enum EventGate {
        case holding([[UInt8]])
        case passing
        case closed
    }

    /// One `watch` line: decoded once, straight into its typed event (`WatchMessage(line:)`), and applied.
    private func receive(_ line: [UInt8]) {
        do {
            guard let message = try WatchMessage(line: line) else { return }
            publish { $0.apply(message, now: Date()) }
        } catch {
            unreadable.add(1, ordering: .relaxed)
            logger.warning("heartd sent an event this client cannot read; skipped",
                           metadata: ["line": "\(String(decoding: line.prefix(200), as: UTF8.self))", "error": "\(error)"])
        }
    }

    /// Changes the state and hands what changed to every subscriber, in order.
    private func publish(_ change: (inout LiveState) -> [LiveUpdate]) {
        // The state lock is held while yielding, so two changes reach every subscriber in the order they happened.
        state.withLock { s in
            let updates = change(&s)
            guard !updates.isEmpty else { return }
            let targets = subscribers.withLock { Array($0.values) }
            for u in updates {
                for target in targets {
                    switch target {
                    case .stream(let c): c.yield(u)
                    case .handler(let handle): handle(u)
                    }
                }
            }
        }
    }
}
