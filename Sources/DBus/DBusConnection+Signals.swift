import Dispatch

/// One registered signal consumer: rules (any may match) and where to deliver.
final class SignalSubscriber: Sendable {
    let rules: [MatchRule]
    let deliver: @Sendable (DBusSignal) -> Void
    let finish: @Sendable () -> Void
    init(rules: [MatchRule], deliver: @escaping @Sendable (DBusSignal) -> Void,
         finish: @escaping @Sendable () -> Void) {
        self.rules = rules
        self.deliver = deliver
        self.finish = finish
    }
}

/// Identifies a signal handler or stream registered on a connection.
public struct SignalSubscriptionToken: Sendable, Hashable {
    let id: UInt64
}

extension DBusConnection {
    /// Registers a handler for signals matching any of `rules`, called on the connection's queue
    /// in arrival order (keep it short; it is the cheapest way to receive signals).
    ///
    /// This filters locally only; ask the bus for the signals with `addMatch`.
    @discardableResult
    public func addSignalHandler(matching rules: [MatchRule],
                                 _ handler: @escaping @Sendable (DBusSignal) -> Void) -> SignalSubscriptionToken {
        register(SignalSubscriber(rules: rules, deliver: handler, finish: {}))
    }

    /// Installs (or, with nil, removes) the short cut for frequent single-property byte-array changes
    /// (see `PropertyValueTap`). One per connection.
    public func setPropertyValueTap(_ tap: PropertyValueTap?) {
        shared.withLock { $0.propertyTap = tap }
    }

    /// Removes a handler or stream; a stream is finished.
    public func removeSignalHandler(_ token: SignalSubscriptionToken) {
        let sub = shared.withLock { $0.subscriptions.removeValue(forKey: token.id) }
        sub?.finish()
    }

    /// Signals matching any of `rules`, in arrival order, as one stream (one continuation, no task per
    /// signal). The stream finishes when the connection ends. Filters locally only: see `addMatch`.
    public func signals(matching rules: [MatchRule],
                        bufferingPolicy: AsyncStream<DBusSignal>.Continuation.BufferingPolicy = .unbounded)
        -> AsyncStream<DBusSignal> {
        let (stream, continuation) = AsyncStream<DBusSignal>.makeStream(bufferingPolicy: bufferingPolicy)
        let token = register(SignalSubscriber(rules: rules,
                                              deliver: { continuation.yield($0) },
                                              finish: { continuation.finish() }))
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = shared.withLock { $0.subscriptions.removeValue(forKey: token.id) }
        }
        return stream
    }

    private func register(_ sub: SignalSubscriber) -> SignalSubscriptionToken {
        let (id, alive) = shared.withLock { s -> (UInt64, Bool) in
            let id = s.nextSubscriptionID
            s.nextSubscriptionID += 1
            if s.connected { s.subscriptions[id] = sub }
            return (id, s.connected)
        }
        if !alive { sub.finish() }
        return SignalSubscriptionToken(id: id)
    }

    /// Asks the bus to route signals matching `rule` to this connection (`AddMatch`).
    public func addMatch(_ rule: MatchRule) async throws {
        _ = try await call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                           interface: "org.freedesktop.DBus", member: "AddMatch",
                           arguments: [.string(rule.description)])
    }

    /// The unique name owning `name`, or nil if it has no owner.
    public func nameOwner(_ name: String, timeout: Duration = .seconds(5)) async throws -> String? {
        do {
            let reply = try await call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                       interface: "org.freedesktop.DBus", member: "GetNameOwner",
                                       arguments: [.string(name)], timeout: timeout)
            return reply.first?.string
        } catch let e as DBusError where e.code == .serviceUnknown {
            return nil
        }
    }

    /// All names on the bus (`ListNames`).
    public func listNames() async throws -> [String] {
        let reply = try await call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus", member: "ListNames")
        guard let names = reply.first?.stringArray else { throw DBusError.unexpectedReply("ListNames: \(reply)") }
        return names
    }
}
