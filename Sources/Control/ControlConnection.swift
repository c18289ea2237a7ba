import Glibc
import Posix
import Dispatch

/// One connected client of a ``ControlServer``.
///
/// Requests on one connection are handled one at a time, in order: while a request is with the
/// handler, reading is paused, so a pipelining client is held back by the kernel socket buffer
/// rather than by our memory. Output is queued up to `maxOutgoingBytes`; beyond it the client is
/// dropped (a `watch` client that stopped reading must not make the daemon buffer without bound).
///
/// `@unchecked Sendable`: all mutable state is touched only on the server's serial queue; tasks
/// that run handler code hop back to that queue before touching it.
final class ControlConnection: @unchecked Sendable {
    let fd: Int32
    let peer: PeerCredentials
    private weak var server: ControlServer?
    private let queue: DispatchQueue
    private let configuration: ControlServerConfiguration
    private let handler: any ControlHandler
    private let policy: AccessPolicy

    private var sources = ConnectionSources()

    private var lines: LineBuffer
    private var outgoing = OutgoingBytes()
    private var busy = false
    private var readEOF = false
    private var closeWhenFlushed = false
    private var watchTask: Task<Void, Never>?
    private(set) var isClosed = false

    init(fd: Int32, peer: PeerCredentials, server: ControlServer) {
        self.fd = fd
        self.peer = peer
        self.server = server
        self.queue = server.queue
        self.configuration = server.configuration
        self.handler = server.handler
        self.policy = server.policy
        self.lines = LineBuffer(maxLineBytes: server.configuration.maxLineBytes)
    }

    /// Creates the dispatch sources. On the server queue.
    func start() {
        sources.start(fd: fd, queue: queue, onReadable: { [weak self] in self?.readAvailable() },
                      onWritable: { [weak self] in self?.flush() })
    }

    // MARK: - Reading

    private func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !isClosed {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                lines.append(chunk.prefix(count))
                pump()
                if busy || sources.readSuspended { return }
            } else if count == 0 {
                clientFinishedSending()
                return
            } else {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                close(reason: "read failed: \(errnoText())")
                return
            }
        }
    }

    private func clientFinishedSending() {
        readEOF = true
        setReading(false)
        pump()
        closeIfIdle()
    }

    /// Handles buffered lines until one is in progress or none is left.
    private func pump() {
        while !isClosed, !busy, !closeWhenFlushed {
            guard let next = lines.next() else { break }
            switch next {
            case .line(let line):
                if line.allSatisfy({ $0 == 32 || $0 == 9 }) { continue }  // blank lines are ignored
                dispatch(line)
            case .overflow:
                setReading(false)
                closeWhenFlushed = true
                send(ControlResponse(id: nil, error: ControlError(.lineTooLong, "request line exceeds \(configuration.maxLineBytes) bytes")))
                return
            }
        }
        setReading(!busy && !readEOF && !closeWhenFlushed)
    }

    private func dispatch(_ line: [UInt8]) {
        let request: ControlRequest
        switch ControlRequest.parse(line: line) {
        case .failure(let rejection): send(rejection.response); return
        case .success(let parsed): request = parsed
        }
        if request.method == ControlProtocol.helloMethod {
            send(ControlResponse(id: request.id, result: ["protocol": .string(ControlProtocol.version)]))
            return
        }
        guard let access = handler.access(for: request.method) else {
            send(ControlResponse(id: request.id, error: ControlError(.unknownMethod, "unknown method '\(request.method)'")))
            return
        }
        if let denied = policy.check(peer, access: access, method: request.method) {
            send(ControlResponse(id: request.id, error: denied))
            return
        }
        busy = true
        let handler = self.handler, peer = self.peer
        if handler.isStreaming(request.method) {
            guard watchTask == nil else {
                busy = false
                send(ControlResponse(id: request.id, error: ControlError(.invalidRequest, "this connection is already streaming")))
                return
            }
            Task {
                let result = await handler.watch(request, peer: peer)
                self.queue.async { self.streamOpened(request, result) }
            }
        } else {
            Task {
                let handled = await handler.handle(request, peer: peer)
                let response = ControlResponse(id: request.id, outcome: handled.outcome)
                self.queue.async { self.requestFinished(response) }
            }
        }
    }

    private func requestFinished(_ response: ControlResponse) {
        busy = false
        guard !isClosed else { return }
        send(response)
        pump()
        closeIfIdle()
    }

    private func streamOpened(_ request: ControlRequest, _ result: Result<AsyncStream<ControlEvent>, ControlError>) {
        busy = false
        switch result {
        case .failure(let error):
            send(ControlResponse(id: request.id, error: error))
        case .success(let stream):
            let queue = self.queue
            let task = Task { [self] in
                for await event in stream {
                    let line = event.encodedLine()
                    if event.isFinal {
                        // Sent and ended in one step: a request the client sends on seeing it must find the
                        // connection free (ending on a later queue turn lost that race now and then).
                        queue.async { self.sendLine(line); self.streamEnded() }
                        return
                    }
                    queue.async { self.sendLine(line) }
                }
                queue.async { self.streamEnded() }
            }
            guard !isClosed else { task.cancel(); return }  // cancelling runs the stream's onTermination
            watchTask = task
            send(ControlResponse(id: request.id, result: ["protocol": .string(ControlProtocol.version), "streaming": true]))
        }
        pump()
        closeIfIdle()
    }

    private func streamEnded() {
        guard watchTask != nil else { return }
        watchTask = nil
        pump()  // requests that arrived meanwhile
        closeIfIdle()
    }

    // MARK: - Writing

    private func send(_ response: ControlResponse) { sendLine(response.encodedLine()) }

    private func sendLine(_ line: [UInt8]) {
        guard !isClosed else { return }
        outgoing.append(line: line)
        if outgoing.count > configuration.maxOutgoingBytes {
            close(reason: "client is not reading: more than \(configuration.maxOutgoingBytes) bytes queued")
            return
        }
        flush()
    }

    private func flush() {
        guard !isClosed else { return }
        switch outgoing.send(to: fd) {
        case .sent:
            setWriting(false)
            if closeWhenFlushed { close(reason: "closed after error") }
        case .wouldBlock:
            setWriting(true)
        case .failed(let error):
            close(reason: "write failed: \(error)")
        }
    }

    // MARK: - Closing

    /// Closes once the client has stopped sending and nothing is in progress or queued.
    private func closeIfIdle() {
        guard readEOF, !busy, !isClosed else { return }
        if watchTask != nil {
            // A watcher that half-closed is gone for good; stop streaming to it.
            close(reason: "client closed")
        } else if outgoing.isEmpty {
            close(reason: "client closed")
        } else {
            closeWhenFlushed = true
        }
    }

    /// Closes the connection now; pending output is discarded. On the server queue.
    func close(reason: String) {
        guard !isClosed else { return }
        isClosed = true
        watchTask?.cancel()
        watchTask = nil
        sources.cancel()
        server?.connectionClosed(self, reason: reason)
    }

    private func setReading(_ on: Bool) {
        guard !isClosed else { return }
        sources.setReading(on)
    }

    private func setWriting(_ on: Bool) {
        guard !isClosed else { return }
        sources.setWriting(on)
    }
}
