import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads an `AcquireNotify` socket (SOCK_SEQPACKET: one notification per datagram) with a DispatchSource.
final class AcquiredNotifyReader: @unchecked Sendable {  // `source` is only touched on `queue`
    private let fd: Int32
    private let queue: DispatchQueue
    private var source: DispatchSourceRead?

    /// Takes ownership of `fd`. `onValue` and `onClosed` run on `queue`.
    init(fd: Int32, queue: DispatchQueue, mtu: Int, onValue: @escaping @Sendable ([UInt8]) -> Void,
         onClosed: @escaping @Sendable () -> Void) {
        self.fd = fd
        self.queue = queue
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let capacity = max(mtu, 512)
        source.setEventHandler { [fd] in
            var buffer = [UInt8](repeating: 0, count: capacity)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, capacity, Int32(MSG_DONTWAIT)) }
                if n > 0 {
                    onValue(Array(buffer[0..<n]))
                    continue
                }
                if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
                // 0 = peer closed (BlueZ released the notify session), <0 = error: stop reading.
                source.cancel()
                onClosed()
                return
            }
        }
        source.setCancelHandler { [fd] in _ = Glibc.close(fd) }
        self.source = source
        source.resume()
    }

    /// Stops reading and closes the socket (BlueZ then ends the notify session).
    func close() {
        queue.async { [self] in
            source?.cancel()
            source = nil
        }
    }
}
