import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads an `AcquireNotify` socket (SOCK_SEQPACKET: one notification per datagram) on its own thread.
///
/// A thread blocked in `recv` costs one wake-up per notification; a DispatchSource on Linux costs two
/// (the epoll manager thread, then a worker), which dominated the CPU per notification in our bench.
final class AcquiredNotifyReader: @unchecked Sendable {  // `closing`, `closed` behind `lock`; `fd` immutable
    private let fd: Int32
    private let lock = NSLock()
    private var closing = false
    private var closed = false

    /// Takes ownership of `fd`. `onValue` runs on the reader thread; `onClosed` when BlueZ closed the socket.
    init(fd: Int32, mtu: Int, onValue: @escaping @Sendable ([UInt8]) -> Void, onClosed: @escaping @Sendable () -> Void) {
        self.fd = fd
        let capacity = max(mtu, 512)
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: capacity)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, capacity, 0) }
                if n > 0 {
                    onValue(Array(buffer[0..<n]))
                    continue
                }
                if n < 0 && errno == EINTR { continue }
                break  // 0: peer closed (or our shutdown); <0: error
            }
            // Close under the lock so close() never shuts down a reused descriptor number.
            let ours = lock.withLock { () -> Bool in
                closed = true
                _ = Glibc.close(fd)
                return closing
            }
            if !ours { onClosed() }
        }
        thread.name = "heartd.notify-fd"
        thread.start()
    }

    /// Stops reading and closes the socket (BlueZ then ends the notify session).
    func close() {
        lock.withLock {
            closing = true
            if !closed { _ = shutdown(fd, Int32(SHUT_RDWR)) }  // wakes the blocked recv with 0
        }
    }
}
