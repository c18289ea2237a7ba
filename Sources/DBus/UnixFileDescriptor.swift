import Glibc
import Synchronization

/// A file descriptor received in (or to be sent with) a D-Bus message, closed on deinit.
///
/// libdbus hands out a duplicate for every `h` it reads, so each instance owns its descriptor.
/// To keep the descriptor beyond this object's life, call `take()` once (the caller then owns it).
public final class UnixFileDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The descriptor number while owned; `take()` leaves the number here but stops the close.
    public let rawValue: Int32
    private let state: FDState

    /// Takes ownership of `fd` (it will be closed on deinit unless `take()` is called).
    public init(owning fd: Int32) {
        rawValue = fd
        state = FDState()
    }

    /// Duplicates `fd` (the caller keeps its own copy); nil if `dup` fails.
    public convenience init?(duplicating fd: Int32) {
        let copy = dup(fd)
        guard copy >= 0 else { return nil }
        self.init(owning: copy)
    }

    /// Gives up ownership: the descriptor will not be closed by this object. Returns nil if already taken.
    public func take() -> Int32? {
        state.release() ? rawValue : nil
    }

    deinit {
        if state.release() { _ = close(rawValue) }
    }

    public static func == (a: UnixFileDescriptor, b: UnixFileDescriptor) -> Bool { a === b }
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
    public var description: String { "fd(\(rawValue))" }
}

/// One-shot ownership flag shared between `take()` and deinit.
private final class FDState: Sendable {
    private let owned = Mutex(true)
    func release() -> Bool {
        owned.withLock { o in
            defer { o = false }
            return o
        }
    }
}
