import CLinux
import Glibc

/// Copy-on-write file systems (btrfs) and files written through a shared mapping: a page written, written back and
/// written again needs new blocks there, and where the disk is full a store into such a page is a SIGBUS, not an
/// error. A file marked not copy-on-write (`FS_NOCOW_FL`, `chattr +C`; set while it is empty) is rewritten in place.
public enum CopyOnWrite {
    /// Creates the file at `path` if it does not exist, empty, marked not copy-on-write where its file system is
    /// btrfs; returns whether the file (new or already there) is so marked or needs no mark. Best effort: an
    /// existing file with data cannot be marked any more (false).
    @discardableResult
    public static func prepareMappedFile(at path: String, mode: mode_t = 0o644) -> Bool {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard clinux_is_btrfs(fd) == 1 else { return true }
        return clinux_set_nocow(fd) == 0
    }
}
