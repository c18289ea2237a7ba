import Glibc

/// A file written through a shared memory mapping (`MAP_SHARED`), in space reserved ahead with `posix_fallocate`.
///
/// Why: a `pwrite(2)` is a system call that also dirties the inode (its mtime) every time, and on a stalling disk
/// it can wait; a copy into a shared mapping of reserved blocks is a `memcpy` into the page cache — it survives a
/// killed process exactly as a `pwrite` does (the kernel writes the pages back), needs no system call, and touches
/// the file system only when a page is first dirtied after writeback. Reserving the blocks first matters: a store
/// into a mapped hole the file system cannot allocate (a full disk) would kill the process with SIGBUS, whereas
/// `reserve` returns the error.
///
/// The mapping covers `capacity` bytes of address space from offset 0; only `[0, reserved)` — blocks that exist in
/// the file — is ever written through it. Callers serialize access (the owner's lock); the file descriptor stays
/// the caller's.
public final class SharedFileMapping {
    public let fd: Int32
    public let capacity: Int
    /// Bytes of the file, from offset 0, that are allocated and may be written through the mapping: the file's size.
    public private(set) var reserved: Int
    private let base: UnsafeMutableRawPointer
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Maps `capacity` bytes of `fd` (opened read-write) shared; `reserved` starts at the file's current size.
    public init(fd: Int32, capacity: Int) throws(PosixError) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw PosixError(call: "fstat", errno: errno) }
        let size = Int(info.st_size)
        guard size <= capacity else { throw PosixError(call: "mmap (file larger than the mapping)", errno: EFBIG) }
        guard let base = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), base != MAP_FAILED else {
            throw PosixError(call: "mmap", errno: errno)
        }
        self.fd = fd
        self.capacity = capacity
        self.base = base
        reserved = size
    }

    deinit { munmap(base, capacity) }

    /// Makes the file `size` bytes long with its blocks allocated (zeros), if it is shorter. Fails (nothing
    /// changed) where the disk is full, the file system cannot allocate ahead, or `size` exceeds the mapping.
    public func reserve(upTo size: Int) throws(PosixError) {
        guard size > reserved else { return }
        guard size <= capacity else { throw PosixError(call: "posix_fallocate (beyond the mapping)", errno: EFBIG) }
        let code = posix_fallocate(fd, off_t(reserved), off_t(size - reserved))
        guard code == 0 else { throw PosixError(call: "posix_fallocate", errno: code) }
        reserved = size
    }

    /// Copies `bytes` to `offset`; false (nothing written) unless they fit in the reserved part.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard offset >= 0, offset + bytes.count <= reserved else { return false }
        if let source = bytes.baseAddress { (base + offset).copyMemory(from: source, byteCount: bytes.count) }
        return true
    }

    /// The file was cut to `size` (or grown by a `pwrite`) behind the mapping's back: what is reserved follows it.
    public func fileResized(to size: Int) {
        reserved = min(size, capacity)
    }

    /// Unmaps the pages wholly below `offset` from this process (their data stays in the file and the page cache,
    /// dirty pages are still written back): an append-only file keeps only its tail resident.
    public func release(below offset: Int) {
        let end = min(offset, reserved) / Self.pageSize * Self.pageSize
        if end > 0 { _ = madvise(base, end, MADV_DONTNEED) }
    }
}
