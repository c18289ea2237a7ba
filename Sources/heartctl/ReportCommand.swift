import ArgumentParser
import Control
import Foundation
import HeartQueries

/// `heartctl report`: one self-contained HTML file (inline SVG, no script, no network) for a session or a range,
/// made by the `report` method (the daemon over its socket, or `StoreQueries` itself with `--db`).
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write an HTML report (plots, statistics, HRV, devices) of a session or a time range.",
        discussion: "Open the file in any browser (xdg-open report.html); it needs no network and no JavaScript.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "The session to report on.") var session: String?
    @Option(parsing: .unconditional, help: "Without --session: range start (ISO 8601, unix seconds, now, -2h).") var from: String?
    @Option(parsing: .unconditional, help: "Without --session: range end (default now).") var to: String?
    @Option(help: "Without --session: only this device (default every device with data).") var device: String?
    @Option(name: [.customShort("o"), .long], help: "The HTML file to write.") var output: String

    func validate() throws {
        if session != nil, from != nil || to != nil || device != nil {
            throw ValidationError("--session cannot be combined with --from, --to or --device")
        }
        if session == nil, from == nil { throw ValidationError("give --session UUID, or --from (and --to) for a range") }
        if let session, UUID(uuidString: session) == nil { throw ValidationError("--session: not a UUID: \(session)") }
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, QueryParameters.parseDate(value, now: Date()) == nil {
                throw ValidationError("\(name): not a date (ISO 8601, unix seconds, 'now' or '-2h'): \(value)")
            }
        }
    }

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().call(ReportCall.self, ReportCall.Params(
                session: session, from: from.map(QueryDate.text), to: to.map(QueryDate.text), device: device))
            let html = r.html
            do {
                try Data(html.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw CLIError(.failed, "cannot write \(output): \(error.localizedDescription)")
            }
            let devices = r.devices, beats = r.beats
            if global.json {
                return printJSON(.object(["path": .string(output), "bytes": .int(html.utf8.count), "devices": .int(devices),
                                          "beats": .int(beats)]))
            }
            print("wrote \(output) (\(html.utf8.count / 1024 + 1) KiB, \(devices) device(s), \(beats) beats); "
                + "open it in any browser, e.g. xdg-open \(output)")
        }
    }
}
