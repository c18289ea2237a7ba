import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with posix_spawn, its signal mask emptied and every signal at its default: the test runner
/// blocks signals that Foundation's `Process` passes on (a mosquitto started that way ignores SIGTERM), and
/// `Process.waitUntilExit` was seen to hang under the test runner (see `PostgresServer.run`).
public final class ChildProcess: @unchecked Sendable {  // `status` under `lock`
    public let pid: pid_t
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `path` with `arguments`; stdout and stderr go to `output` (appended), or nowhere; `environment` adds to
    /// (or replaces in) this process's environment.
    public init(_ path: String, _ arguments: [String], output: String? = nil, environment: [String: String] = [:]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw TestFailure("cannot run \(path): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    public var isRunning: Bool {
        lock.withLock {
            guard status == nil else { return false }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
            return status == nil
        }
    }

    /// Sends `signal` and waits for the exit.
    public func stop(_ signal: Int32 = SIGTERM) {
        guard isRunning else { return }
        kill(pid, signal)
        wait()
    }

    /// Waits for the exit; its raw wait status.
    @discardableResult
    public func wait() -> Int32 {
        lock.withLock {
            if let status { return status }
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            status = raw
            return raw
        }
    }

    deinit { stop(SIGKILL) }
}
