internal import CDBus
import Dispatch

/// Method calls (a reply awaited on the connection queue, cancellable) and signals sent from this connection.
extension DBusConnection {
    /// Calls a method and returns the reply's arguments.
    ///
    /// - Throws: `DBusError` (the remote error, `.noReply` after `timeout`, `.serviceUnknown`,
    ///   `.disconnected`, `.invalidArgs` for a message that cannot be built).
    public func call(destination: String, path: String, interface: String, member: String,
                     arguments: [DBusValue] = [], timeout: Duration = .seconds(25)) async throws -> [DBusValue] {
        let message = try Self.makeMethodCall(destination: destination, path: path, interface: interface,
                                              member: member, arguments: arguments)
        let ms = Self.milliseconds(timeout)
        let state = CallState()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (cont: CheckedContinuation<[DBusValue], any Error>) in
                queue.async { self.sendWithReply(message, timeoutMs: ms, state: state, continuation: cont) }
            }
        } onCancel: {
            // Runs after the send was queued (or before it, if already cancelled): the queue orders both.
            queue.async {
                state.cancelled = true
                state.box?.cancel()
            }
        }
    }

    /// Emits a signal from this connection.
    public func emitSignal(path: String, interface: String, member: String, arguments: [DBusValue] = []) throws {
        try Validate.objectPath(path)
        try Validate.interface(interface)
        try Validate.member(member)
        guard let m = dbus_message_new_signal(path, interface, member) else { throw MessageEncoder.invalid("signal") }
        let message = OwnedMessage(m)
        try MessageEncoder.append(arguments, to: m)
        queue.async { self.sendNow(message) }
    }

    static func milliseconds(_ d: Duration) -> Int32 {
        let (s, atto) = d.components
        let ms = s * 1000 + atto / 1_000_000_000_000_000
        return Int32(clamping: max(1, ms))
    }

    static func makeMethodCall(destination: String, path: String, interface: String, member: String,
                               arguments: [DBusValue]) throws -> OwnedMessage {
        try Validate.busName(destination)
        try Validate.objectPath(path)
        try Validate.interface(interface)
        try Validate.member(member)
        guard let m = dbus_message_new_method_call(destination, path, interface, member) else {
            throw MessageEncoder.invalid("cannot build call \(interface).\(member)")
        }
        let message = OwnedMessage(m)
        try MessageEncoder.append(arguments, to: m)
        return message
    }

    /// On `queue`.
    private func sendNow(_ message: OwnedMessage) {
        guard let raw else { return }
        _ = dbus_connection_send(raw, message.raw, nil)
        dbus_connection_flush(raw)
    }

    /// On `queue`.
    private func sendWithReply(_ message: OwnedMessage, timeoutMs: Int32, state: CallState,
                               continuation: CheckedContinuation<[DBusValue], any Error>) {
        if state.cancelled {
            continuation.resume(throwing: DBusError.cancelled); return
        }
        guard let raw, dbus_connection_get_is_connected(raw) != 0 else {
            continuation.resume(throwing: DBusError.localDisconnected); return
        }
        var pending: OpaquePointer? = nil
        guard dbus_connection_send_with_reply(raw, message.raw, &pending, timeoutMs) != 0, let pending else {
            let unixFD = dbus_connection_can_send_type(raw, CDBUS_TYPE_UNIX_FD) == 0
            continuation.resume(throwing: unixFD && message.containsUnixFD
                ? DBusError(code: .notSupported, name: "org.freedesktop.DBus.Error.NotSupported",
                            message: "connection cannot pass unix fds")
                : DBusError.localDisconnected)
            return
        }
        let replyBox = ReplyBox(continuation, connection: self, pending: pending)
        state.box = replyBox
        let box = Unmanaged.passRetained(replyBox).toOpaque()
        let notify: DBusPendingCallNotifyFunction = { p, user in
            guard let user else { return }
            let box = Unmanaged<ReplyBox>.fromOpaque(user).takeUnretainedValue()
            box.complete(p)
        }
        let free: DBusFreeFunction = { user in
            guard let user else { return }
            // libdbus drops pending calls without a reply when the link dies: never leave the caller waiting.
            let box = Unmanaged<ReplyBox>.fromOpaque(user)
            box.takeUnretainedValue().abandon()
            box.release()
        }
        if dbus_pending_call_set_notify(pending, notify, box, free) == 0 {
            Unmanaged<ReplyBox>.fromOpaque(box).release()
            dbus_pending_call_cancel(pending)
            dbus_pending_call_unref(pending)
            continuation.resume(throwing: DBusError(code: .noMemory, name: "org.freedesktop.DBus.Error.NoMemory",
                                                    message: "set_notify failed"))
            return
        }
        pendingCalls.add(1, ordering: .relaxed)  // the box's settle() takes it back
        // The reply may already be there (set_notify then does not call back).
        if dbus_pending_call_get_completed(pending) != 0 {
            Unmanaged<ReplyBox>.fromOpaque(box).takeUnretainedValue().complete(pending)
        }
        dbus_pending_call_unref(pending)  // libdbus keeps its own reference until completion
        dbus_connection_flush(raw)
    }
}

/// Owns one libdbus message reference; lets a built message cross to the connection queue.
final class OwnedMessage: @unchecked Sendable {  // the message is not mutated once handed over
    let raw: OpaquePointer
    var containsUnixFD: Bool { dbus_message_contains_unix_fds(raw) != 0 }
    init(_ raw: OpaquePointer) { self.raw = raw }
    deinit { dbus_message_unref(raw) }
}

/// Cancellation state of one call, shared by the task's cancel handler and the queue.
final class CallState: @unchecked Sendable {  // only touched on the connection queue
    var cancelled = false
    var box: ReplyBox?
}

/// The awaiting task of one pending call; completed exactly once on the connection queue.
final class ReplyBox {
    private var continuation: CheckedContinuation<[DBusValue], any Error>?
    private unowned let connection: DBusConnection
    /// The pending call while unsettled (not retained: libdbus owns it and runs our free function,
    /// which settles this box, before it goes away).
    private var pending: OpaquePointer?

    init(_ c: CheckedContinuation<[DBusValue], any Error>, connection: DBusConnection, pending: OpaquePointer) {
        continuation = c
        self.connection = connection
        self.pending = pending
    }

    private func settle() -> CheckedContinuation<[DBusValue], any Error>? {
        guard let c = continuation else { return nil }
        continuation = nil
        pending = nil
        connection.pendingCalls.subtract(1, ordering: .relaxed)
        return c
    }

    func abandon() {
        settle()?.resume(throwing: DBusError.localDisconnected)
    }

    /// The awaiting task was cancelled: stop waiting for the reply.
    func cancel() {
        let p = pending
        guard let continuation = settle() else { return }
        continuation.resume(throwing: DBusError.cancelled)
        if let p { dbus_pending_call_cancel(p) }  // may free it (our free function then finds us settled)
    }

    func complete(_ pending: OpaquePointer?) {
        guard let continuation = settle() else { return }
        guard let pending, let reply = dbus_pending_call_steal_reply(pending) else {
            continuation.resume(throwing: DBusError.localDisconnected)
            return
        }
        defer { dbus_message_unref(reply) }
        if dbus_message_get_type(reply) == CDBUS_MESSAGE_TYPE_ERROR {
            let name = dbus_message_get_error_name(reply).map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            var message = ""
            if case .string(let s)? = MessageDecoder.decodeBody(reply).first { message = s }
            var error = DBusError(name: name, message: message)
            // libdbus answers pending calls with NoReply when the link drops: say what happened.
            if error.code == .noReply, let raw = connection.raw, dbus_connection_get_is_connected(raw) == 0 {
                error.code = .disconnected
            }
            continuation.resume(throwing: error)
        } else {
            continuation.resume(returning: MessageDecoder.decodeBody(reply))
        }
    }
}
