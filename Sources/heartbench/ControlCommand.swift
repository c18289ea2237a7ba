import ArgumentParser

/// `heartbench control`: status latency and watch fan-out against the real daemon (see ControlBenchmark.swift).
struct ControlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "control",
        abstract: "Control socket: status round trip and watch fan-out to N clients, 0 vs N watchers.")

    @Argument(parsing: .captureForPassthrough,
              help: "--heartd PATH, --calls N, --watchers N, --seconds S, --speed X, --latency-seconds S")
    var options: [String] = []

    func run() async throws {
        try await runControlBenchmark(arguments: options)
    }
}
