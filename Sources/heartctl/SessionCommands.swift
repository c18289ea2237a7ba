import ArgumentParser
import Control
import Foundation
import HealthModel
import HeartQueries

/// `KEY=VALUE` options (validated to contain `=`) as metadata.
func metaObject(_ meta: [String]) -> Metadata {
    var object: Metadata = [:]
    for m in meta {
        let parts = m.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        object[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
    }
    return object
}

/// `heartctl session start|stop|show`: mark what a stretch of heart data was (docs/DATA-MODEL.md, Sessions).
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session", abstract: "Start, stop or show a session (a labelled block of heart data).",
        subcommands: [SessionStart.self, SessionStop.self, SessionShow.self])
}

struct SessionStart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Start a session; prints its UUID.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "A label (the round, block, class).") var label: String?
    @Option(help: "A device address the session covers (repeatable; default every sensor).") var device: [String] = []
    @Option(help: "Metadata KEY=VALUE (repeatable).") var meta: [String] = []

    func validate() throws { try MetadataOptions.validate(meta) }

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().json(SessionStartCall.self, SessionStartCall.Params(
                label: label, devices: device, metadata: metaObject(meta)))
            if global.json { return printJSON(r) }
            print(try typedResult(SessionStartCall.self, r).uuid.uuidString)
        }
    }
}

struct SessionStop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop", abstract: "Stop a session (default: the only active one); prints its statistics.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Session UUID.") var uuid: String?

    func run() async throws {
        try await runReporting {
            printJSON(try await global.transport().json(SessionStopCall.self, SessionStopCall.Params(uuid: uuid)))
        }
    }
}

struct SessionShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "One session with its statistics (so far, when active), JSON.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Session UUID.") var uuid: String

    func run() async throws {
        try await runReporting { printJSON(try await global.transport().json(SessionShowCall.self, UUIDParams(uuid: uuid))) }
    }
}

struct Sessions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List sessions.")
    @OptionGroup var global: GlobalOptions
    @Option(parsing: .unconditional, help: "Sessions overlapping from this date on.") var from: String?
    @Option(parsing: .unconditional, help: "Sessions starting before this date.") var to: String?
    @Option(help: "Only this label.") var label: String?
    @Flag(help: "Only active sessions.") var active = false
    @OptionGroup var metadata: MetadataOptions

    func run() async throws {
        try await runReporting {
            let transport = try global.transport()
            let params = SessionsCall.Params(from: from.map(QueryDate.text), to: to.map(QueryDate.text), label: label,
                                             active: active, metadata: metadata.allowed)
            if global.json { return printJSON(try await transport.json(SessionsCall.self, params)) }
            print(Self.text(try await transport.call(SessionsCall.self, params)))
        }
    }

    /// The sessions as a table, or "no sessions".
    static func text(_ r: SessionsCall.Result) -> String {
        var table = Table("UUID", "LABEL", "START", "END", "BEATS", "AVG", "RMSSD", "DEVICES")
        for s in r.sessions {
            let st = s.statistics
            table.add([s.uuid.uuidString, s.label ?? "-", ExportDates.iso(s.start), s.end.map(ExportDates.iso) ?? "active",
                       st.map { String($0.beats) } ?? "-", Table.number(st?.heartRateAverage), Table.number(st?.rmssdMs),
                       s.devices.isEmpty ? "all" : s.devices.joined(separator: ",")])
        }
        return table.rows.isEmpty ? "no sessions" : table.render()
    }
}
