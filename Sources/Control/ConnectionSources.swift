import Dispatch
import Glibc

/// The read and write dispatch sources of one ``ControlConnection``, and which of them is suspended (dispatch
/// counts suspensions: a source is resumed or suspended only when that changes). Only touched on the server's
/// serial queue.
struct ConnectionSources {
    private var readSource: DispatchSourceRead?
    private var writeSource: DispatchSourceWrite?
    /// Reading is paused (`setReading(false)`).
    private(set) var readSuspended = false
    private var writeSuspended = true

    /// Creates the sources on `fd`, reading on and writing suspended.
    mutating func start(fd: Int32, queue: DispatchQueue, onReadable: @escaping @Sendable () -> Void,
                        onWritable: @escaping @Sendable () -> Void) {
        let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let write = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        read.setEventHandler(handler: onReadable)
        write.setEventHandler(handler: onWritable)
        // The descriptor is closed only after both sources are cancelled (dispatch requirement).
        let closer = DescriptorCloser(fd: fd, sources: 2)
        let cancelled: @Sendable () -> Void = { closer.sourceCancelled() }
        read.setCancelHandler(handler: cancelled)
        write.setCancelHandler(handler: cancelled)
        readSource = read
        writeSource = write
        read.resume()
    }

    /// Cancels both sources, which closes the descriptor.
    mutating func cancel() {
        // Suspended sources must be resumed before cancel (and before release).
        if let readSource {
            if readSuspended { readSource.resume() }
            readSource.cancel()
        }
        if let writeSource {
            if writeSuspended { writeSource.resume() }
            writeSource.cancel()
        }
        readSuspended = false
        writeSuspended = false
    }

    mutating func setReading(_ on: Bool) {
        Self.set(readSource, on: on, suspended: &readSuspended)
    }

    mutating func setWriting(_ on: Bool) {
        Self.set(writeSource, on: on, suspended: &writeSuspended)
    }

    private static func set(_ source: (any DispatchSourceProtocol)?, on: Bool, suspended: inout Bool) {
        guard let source else { return }
        if on, suspended {
            suspended = false
            source.resume()
        } else if !on, !suspended {
            suspended = true
            source.suspend()
        }
    }
}

/// Closes a descriptor once every dispatch source using it has been cancelled.
///
/// `@unchecked Sendable`: `remaining` is only touched from cancel handlers, which run on the one
/// serial queue the sources target.
private final class DescriptorCloser: @unchecked Sendable {
    private let fd: Int32
    private var remaining: Int

    init(fd: Int32, sources: Int) {
        self.fd = fd
        self.remaining = sources
    }

    func sourceCancelled() {
        remaining -= 1
        if remaining == 0 { Glibc.close(fd) }
    }
}
