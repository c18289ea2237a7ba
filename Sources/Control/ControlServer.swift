import Glibc
import Posix
import Dispatch
import Logging

/// The control socket server: a Unix stream socket serving JSON-lines requests to a ``ControlHandler``.
///
/// All socket I/O is nonblocking and driven by `DispatchSource`s on one serial queue; handler calls
/// run in tasks, so a slow handler or a slow client never blocks the caller or other clients.
/// A client whose queued output exceeds `maxOutgoingBytes` (e.g. a `watch` client that stopped
/// reading) is dropped.
///
/// `@unchecked Sendable`: every mutable property (`connections`, `listener`, `isStopped`) is only
/// touched on `queue`; the socket descriptors are confined to that queue too.
public final class ControlServer: @unchecked Sendable {
    public let configuration: ControlServerConfiguration
    let handler: any ControlHandler
    let policy: AccessPolicy
    let logger: Logger
    let queue = DispatchQueue(label: "heartd.control.server")

    private let listenFD: Int32
    private var listener: DispatchSourceRead?
    private var connections: [ObjectIdentifier: ControlConnection] = [:]
    private var isStopped = false
    private var runWaiters: [AsyncStream<Never>.Continuation] = []

    /// Creates the socket (parent directory, stale-socket removal, bind, mode, group) and listens.
    /// Call ``start()`` to begin accepting.
    public init(configuration: ControlServerConfiguration, handler: any ControlHandler, logger: Logger) throws(ControlSocketError) {
        let readGroup = try configuration.group.map { name throws(ControlSocketError) in try GroupIdentity.resolve(name) }
        let adminGroup = try configuration.adminGroup.map { name throws(ControlSocketError) in try GroupIdentity.resolve(name) }
        let sessionGroup = try configuration.sessionGroup.map { name throws(ControlSocketError) in try GroupIdentity.resolve(name) }
        self.configuration = configuration
        self.handler = handler
        self.policy = AccessPolicy(readGroup: readGroup, adminGroup: adminGroup, sessionGroup: sessionGroup)
        self.logger = logger
        self.listenFD = try Self.bindSocket(configuration, group: readGroup)
    }

    deinit {
        // After start() the listener's cancel handler owns the descriptor; after stop() it is closed.
        if let listener { listener.cancel() } else if !isStopped { close(listenFD) }
    }

    /// Starts accepting clients. Returns at once.
    public func start() {
        queue.async { [self] in
            guard listener == nil, !isStopped else { return }
            let source = DispatchSource.makeReadSource(fileDescriptor: listenFD, queue: queue)
            source.setEventHandler { [weak self] in self?.acceptPending() }
            let fd = listenFD
            source.setCancelHandler { close(fd) }
            listener = source
            source.resume()
            logger.info("control socket listening", metadata: ["heartd.socket": "\(configuration.path)"])
        }
    }

    /// Stops accepting, closes every client, and removes the socket file. Idempotent.
    public func stop() {
        queue.sync {
            guard !isStopped else { return }
            isStopped = true
            if let listener { listener.cancel() } else { close(listenFD) }
            listener = nil
            for connection in connections.values { connection.close(reason: "server stopping") }
            connections.removeAll()
            unlink(configuration.path)
            for waiter in runWaiters { waiter.finish() }
            runWaiters.removeAll()
        }
    }

    /// Starts, then waits until ``stop()`` is called or the surrounding task is cancelled, and stops.
    /// For ServiceLifecycle: `await withGracefulShutdownHandler { await server.run() } onGracefulShutdown: { server.stop() }`.
    public func run() async {
        let (stream, continuation) = AsyncStream<Never>.makeStream()
        let alreadyStopped = queue.sync {
            if isStopped { return true }
            runWaiters.append(continuation)
            return false
        }
        guard !alreadyStopped else { return }
        start()
        await withTaskCancellationHandler {
            for await _ in stream {}
        } onCancel: {
            continuation.finish()
        }
        stop()
    }

    /// The number of connected clients (for status and tests).
    public var clientCount: Int { queue.sync { connections.count } }

    // MARK: - Accepting (on queue)

    private func acceptPending() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK {
                    logger.warning("accept failed", metadata: ["error": "\(errnoText())"])
                }
                return
            }
            UnixSocket.setCloseOnExec(fd)
            UnixSocket.setNonBlocking(fd)
            admit(fd)
        }
    }

    private func admit(_ fd: Int32) {
        guard connections.count < configuration.maxClients else {
            let refusal = ControlResponse(id: nil, error: ControlError(.tooManyClients, "server has \(configuration.maxClients) clients")).encodedLine() + [10]
            _ = refusal.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(fd)
            logger.warning("control client refused: too many clients", metadata: ["heartd.clients": "\(connections.count)"])
            return
        }
        let peer: PeerCredentials
        do { peer = try PeerCredentials.of(socket: fd) } catch {
            logger.warning("control client without credentials", metadata: ["error": "\(error)"])
            close(fd)
            return
        }
        let connection = ControlConnection(fd: fd, peer: peer, server: self)
        connections[ObjectIdentifier(connection)] = connection
        logger.debug("control client connected", metadata: ["heartd.peer": "\(peer)"])
        connection.start()
    }

    /// Called by a connection (on queue) once it has closed.
    func connectionClosed(_ connection: ControlConnection, reason: String) {
        connections[ObjectIdentifier(connection)] = nil
        logger.debug("control client closed", metadata: ["heartd.peer": "\(connection.peer)", "reason": "\(reason)"])
    }

    // MARK: - Socket setup

    private static func bindSocket(_ configuration: ControlServerConfiguration, group: GroupIdentity?) throws(ControlSocketError) -> Int32 {
        let path = configuration.path
        try UnixSocket.makeParentDirectory(of: path)
        try removeStaleSocket(at: path)
        let fd = try UnixSocket.makeStream()
        do throws(ControlSocketError) {
            let bound = try UnixSocket.withAddress(path) { bind(fd, $0, $1) }
            guard bound == 0 else { throw ControlSocketError(.systemCall, "bind \(path): \(errnoText())") }
            guard chmod(path, mode_t(configuration.mode)) == 0 else {
                throw ControlSocketError(.systemCall, "chmod \(path): \(errnoText())")
            }
            // Skip chown when bind already gave the right group (the usual case under the unit, whose
            // SystemCallFilter=~@privileged refuses chown even for a no-op).
            var info = stat()
            if let group, stat(path, &info) == 0, info.st_gid != group.gid, chown(path, uid_t.max, group.gid) != 0 {
                throw ControlSocketError(.systemCall, "chown \(path) to group \(group.name): \(errnoText())")
            }
            guard listen(fd, 64) == 0 else { throw ControlSocketError(.systemCall, "listen: \(errnoText())") }
            UnixSocket.setNonBlocking(fd)
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// Removes a socket left behind by a dead server; refuses when a server still answers or when
    /// the path is not a socket.
    private static func removeStaleSocket(at path: String) throws(ControlSocketError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw ControlSocketError(.pathOccupied, "\(path) exists and is not a socket")
        }
        let probe = try UnixSocket.makeStream()
        defer { close(probe) }
        if try UnixSocket.connect(probe, to: path) == nil {
            throw ControlSocketError(.addressInUse, "another server is listening on \(path)")
        }
        unlink(path)
    }
}
