import ArgumentParser

/// `heartbench`: measures heartd's hot paths against their targets and against naive baselines.
///
/// One subcommand per area, each in its own file or folder (`Data/` for `data`). To add one (`dbus`,
/// `control`), write an `AsyncParsableCommand` that fills a `ResultTable` and prints it with `BenchmarkReport`,
/// then list it in `subcommands` below.
@main
struct HeartBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heartbench",
        abstract: "Measures heartd against its performance targets.",
        discussion: "Build with `swift build -c release --product heartbench`; debug builds are not representative.",
        subcommands: [DataBenchmark.self, ControlCommand.self, TimelineCommand.self, SyncBenchmark.self,
                      SessionBenchmark.self, CaptureBenchmark.self, HRVBenchmark.self, ScaleBenchmark.self])
}
