import Glibc
import Synchronization

/// A C string turned into a `String`, reusing the last one when the bytes are the same: the notify path sees the
/// same object path and sender in signal after signal, and a `String(cString:)` per signal (an allocation, then
/// a release, and a fresh hash of the path by the router) is most of what the short cut cost beyond libdbus.
/// Reusing the last `String` keeps its storage, so a lookup by it compares by identity first.
final class RepeatedCString: Sendable {
    private let last = Mutex<String?>(nil)

    func string(_ p: UnsafePointer<CChar>) -> String {
        last.withLock { last in
            if let s = last, s.withCString({ strcmp($0, p) == 0 }) { return s }
            let s = String(cString: p)
            last = s
            return s
        }
    }
}
