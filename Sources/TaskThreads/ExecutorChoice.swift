import Glibc

/// Which executor a program's tasks run on: heartd's own threads (`TaskThreadPool`, no periodic wake-up) or the
/// platform's (libdispatch). The run-time switch is the environment variable `HEARTD_EXECUTOR` (`task-threads`, the
/// default, or `platform`), read before anything asynchronous runs, so a unit can turn the SPI off with
/// `Environment=HEARTD_EXECUTOR=platform` without a rebuild.
public enum ExecutorChoice: String, Sendable, CaseIterable {
    case taskThreads = "task-threads"
    case platform

    public static let environmentVariable = "HEARTD_EXECUTOR"

    /// A value that is not a choice is an error naming the ones that are.
    public struct InvalidValue: Error, CustomStringConvertible, Sendable {
        public let value: String
        public var description: String {
            "\(ExecutorChoice.environmentVariable)=\(value) is not one of "
                + ExecutorChoice.allCases.map(\.rawValue).joined(separator: ", ")
        }
    }

    /// The choice `environment` makes; the default when the variable is unset or empty.
    public init(environment: [String: String]) throws(InvalidValue) {
        guard let value = environment[Self.environmentVariable], !value.isEmpty else {
            self = .taskThreads
            return
        }
        guard let choice = ExecutorChoice(rawValue: value) else { throw InvalidValue(value: value) }
        self = choice
    }
}

extension TaskThreads {
    /// A daemon's synchronous entry (heartd, heartd-sync): the choice `environment` makes (`HEARTD_EXECUTOR`), a pool
    /// of threads named `poolName` where it asks for one, then `body` as the first task; exit status 2 with a
    /// message naming `program` when the variable holds no choice.
    public static func runDaemonMain(program: String, poolName: String, environment: [String: String],
                                     _ body: @escaping @Sendable () async -> Int32) -> Never {
        let choice: ExecutorChoice
        do {
            choice = try ExecutorChoice(environment: environment)
        } catch {
            let line = Array("\(program): \(error)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            exit(2)
        }
        runMain(on: TaskThreadPool(.init(name: poolName)), choice: choice, body)
    }
}
