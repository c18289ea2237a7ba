import Foundation
import Glibc
import HeartQueries
import Synchronization

/// Watch connections read by one polling thread that only counts event lines (so 50 watchers cost the
/// benchmark one thread, not 50).
final class WatchFanout: Sendable {
    struct Counts: Sendable {
        var events: [Int]
        var closed: [Bool]
        var stop = false
    }

    let fds: [Int32]
    let state: Mutex<Counts>

    init(socket: String, count: Int) throws {
        var fds: [Int32] = []
        for _ in 0..<count {
            let c = try BenchConnection(path: socket)
            _ = try c.roundTrip(WatchCall.request(id: 1, WatchCall.Params()))
            // Keep the descriptor past the connection object's lifetime.
            fds.append(dup(c.fd))
        }
        self.fds = fds
        state = Mutex(Counts(events: Array(repeating: 0, count: count), closed: Array(repeating: false, count: count)))
    }

    func start() {
        let fds = self.fds
        Thread.detachNewThread { [self] in
            var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while !state.withLock({ $0.stop }) {
                guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
                for i in polls.indices where polls[i].revents != 0 {
                    let n = chunk.withUnsafeMutableBytes { recv(polls[i].fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                    if n <= 0 {
                        if n == 0 || (errno != EAGAIN && errno != EINTR) {
                            state.withLock { $0.closed[i] = true }
                            polls[i].fd = -1
                        }
                        continue
                    }
                    let lines = chunk[..<n].reduce(0) { $1 == 10 ? $0 + 1 : $0 }
                    state.withLock { $0.events[i] += lines }
                }
            }
        }
    }

    func snapshot() -> Counts { state.withLock { $0 } }

    func stop() {
        state.withLock { $0.stop = true }
        usleep(200_000)
        for fd in fds { close(fd) }
    }
}
