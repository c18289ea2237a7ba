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
