internal import CLinux
import Foundation
import Posix
import Glibc

/// Buffers for reading up to `count` datagrams with one `recvmmsg`, each with its `SCM_TIMESTAMPNS`.
/// Allocated once per reader and reused; owned by the reader thread.
struct DatagramBatch: ~Copyable {
    let count: Int
    let capacity: Int
    private let data: UnsafeMutableRawPointer
    private let control: UnsafeMutableRawPointer
    private let iovecs: UnsafeMutablePointer<iovec>
    private let headers: UnsafeMutablePointer<clinux_mmsghdr>
    /// Entries the last `receive` filled.
    private var filled = 0
    static let controlSize = Int(clinux_timestampns_space()) + 16

    init(count: Int, capacity: Int) {
        self.count = count
        self.capacity = capacity
        data = .allocate(byteCount: count * capacity, alignment: 16)
        control = .allocate(byteCount: count * Self.controlSize, alignment: 16)
        iovecs = .allocate(capacity: count)
        headers = .allocate(capacity: count)
        for i in 0..<count {
            iovecs[i] = iovec(iov_base: data + i * capacity, iov_len: capacity)
            headers[i] = clinux_mmsghdr()
            headers[i].msg_hdr = msghdr(msg_name: nil, msg_namelen: 0, msg_iov: iovecs + i, msg_iovlen: 1,
                                        msg_control: control + i * Self.controlSize,
                                        msg_controllen: Self.controlSize, msg_flags: 0)
        }
    }

    deinit {
        data.deallocate()
        control.deallocate()
        iovecs.deallocate()
        headers.deallocate()
    }

    /// Blocks for the first datagram, then takes what else is queued (`MSG_WAITFORONE`). The count, or -1.
    /// Only the entries the previous call filled need resetting (the kernel changes no other): at one
    /// notification a second that is one, not `count`.
    mutating func receive(_ fd: Int32) -> Int {
        for i in 0..<filled {
            headers[i].msg_hdr.msg_controllen = Self.controlSize
            headers[i].msg_hdr.msg_flags = 0
            headers[i].msg_len = 0
        }
        let n = Int(clinux_recvmmsg_waitforone(fd, headers, UInt32(count)))
        filled = max(0, n)
        return n
    }

    /// How many of the `received` datagrams are data, and whether the stream ended. recvmmsg reports the end
    /// of the stream as zero-length datagrams and, past the first one, fills the rest of the batch with them:
    /// on a hung-up socket the trailing empty entries are the end, not values. (An empty datagram on a live
    /// socket is just an empty value.)
    func dataBeforeEndOfStream(_ fd: Int32, received: Int) -> (count: Int, ended: Bool) {
        guard received > 0, headers[received - 1].msg_len == 0, clinux_peer_closed(fd) != 0 else {
            return (received, false)
        }
        var count = received
        while count > 0 && headers[count - 1].msg_len == 0 { count -= 1 }
        return (count, true)
    }

    /// The first `n` datagrams, with arrival times from their kernel timestamps (now, if there are none).
    func datagrams(_ n: Int, stamped: Bool) -> [NotifyDatagram] {
        let wallNow = Date().timeIntervalSince1970
        let monoNow = MonotonicClock.now()
        var out: [NotifyDatagram] = []
        out.reserveCapacity(n)
        for i in 0..<n {
            let len = Int(headers[i].msg_len)
            let bytes = [UInt8](UnsafeRawBufferPointer(start: data + i * capacity, count: min(len, capacity)))
            var wall = wallNow
            if stamped, let t = Self.timestamp(headers[i].msg_hdr) {
                wall = min(t, wallNow)  // never in the future (a wall clock step between the two reads)
            }
            out.append(NotifyDatagram(bytes: bytes, wall: Date(timeIntervalSince1970: wall),
                                      monotonic: monoNow - (wallNow - wall)))
        }
        return out
    }

    /// The `SCM_TIMESTAMPNS` control message of one datagram, as seconds since 1970.
    private static func timestamp(_ h: msghdr) -> Double? {
        var h = h
        var ts = timespec()
        guard clinux_timestampns(&h, &ts) == 1 else { return nil }
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
