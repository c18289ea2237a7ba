import ArgumentParser
import Control
import Foundation
import HealthModel
import HeartQueries

/// `--from/--to/--device`, shared by the range commands. Dates: ISO 8601, a day (2026-11-22), unix seconds,
/// `now`, or relative (`-2h`, `-7d`).
struct RangeOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Start (ISO 8601, YYYY-MM-DD, unix seconds, now, -2h, -7d).") var from: String?
    @Option(parsing: .unconditional, help: "End (same forms; default now).") var to: String?
    @Option(help: "Only this device address.") var device: String?

    var scope: RangeParams {
        RangeParams(from: from.map(QueryDate.text), to: to.map(QueryDate.text), device: device?.uppercased())
    }
}

struct Series: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List samples: heartbeat series, heart-rate series, energy, HRV.",
        discussion: "A page at a time (--limit, default 1000): the last line names the --cursor of the next page. "
            + "--all lists every page, one after another, in bounded memory (with --json one sample per line).")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var range: RangeOptions
    @Option(help: "heart-rate, energy, hrv or heartbeat.") var type: String?
    @Option(help: "At most this many (per page with --all; default 1000).") var limit: Int?
    @Option(help: "Start after this mark (the 'next' a page printed).") var cursor: String?
    @Flag(help: "Every page, one after another.") var all = false
    @OptionGroup var filter: SampleFilterOptions

    func run() async throws {
        try await runReporting {
            let scope = filter.scope(range)
            let transport = try global.transport()
            var cursor = self.cursor
            var first = true
            repeat {
                // include_open: the series still being captured (--db: as of the daemon's last checkpoint), on the last page
                let params = SeriesCall.Params(type: type, device: scope.device, from: scope.from, to: scope.to, limit: limit,
                                               session: scope.session, metadata: scope.metadata, includeOpen: true, cursor: cursor)
                if global.json {
                    // The JSON as it came (with --all one sample per line).
                    let r = try await transport.json(SeriesCall.self, params)
                    cursor = r["next"]?.stringValue
                    if all {
                        for s in r["samples"]?.arrayValue ?? [] { printJSON(s) }
                    } else {
                        printJSON(r)
                    }
                    continue
                }
                // The typed page (with --db the store's answer as it is, never a JSON tree).
                let page = try await transport.call(SeriesCall.self, params)
                cursor = page.next
                Self.printPage(page, header: first)
                first = false
            } while all && cursor != nil
            if !global.json, !all, let cursor { print("more: --cursor \(cursor)") }
        }
    }

    /// One page as a table (its header only on the first page), flushed: a reader of the pipe sees it at once.
    static func printPage(_ page: SeriesCall.Result, header: Bool) {
        var out = pageText(page, header: header)
        if let open = page.open, open > 0 {
            out += "\(open) of them still open: captured so far, stored when they finish\n"
        }
        print(out, terminator: "")
        fflush(nil)
    }

    /// The table of a page, each line ending in a newline ("no samples" on an empty first page, nothing on an empty
    /// later page).
    static func pageText(_ page: SeriesCall.Result, header: Bool) -> String {
        var table = Table("UUID", "TYPE", "START", "END", "COUNT", "AVG", "MIN", "MAX", "DEVICE")
        table.rows.reserveCapacity(page.samples.count)
        for listed in page.samples {
            let s = listed.summary, a = s.aggregates
            // An open series (still being captured, not stored yet) says so: its data is only so far.
            table.add([s.uuid.uuidString, shortType(s.typeIdentifier) + (listed.open == true ? " (open)" : ""),
                       ExportDates.iso(s.start), ExportDates.iso(s.end), String(s.count), Table.number(a.average ?? a.sum),
                       Table.number(a.minimum), Table.number(a.maximum), s.device?.localIdentifier ?? "-"])
        }
        if table.rows.isEmpty { return header ? "no samples\n" : "" }
        return table.render(header: header) + "\n"
    }
}

func shortType(_ identifier: String) -> String {
    switch identifier {
    case "HKDataTypeIdentifierHeartbeatSeries": "heartbeat"
    case "HKQuantityTypeIdentifierHeartRate": "heart-rate"
    case "HKQuantityTypeIdentifierActiveEnergyBurned": "energy"
    case "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": "hrv"
    default: identifier
    }
}

struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "One sample with its device, metadata and contents (JSON).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Sample UUID.") var uuid: String

    func run() async throws {
        try await runReporting { printJSON(try await global.transport().json(ShowCall.self, UUIDParams(uuid: uuid))) }
    }
}

struct Beats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The beats of one heartbeat series: offset (s) and precededByGap.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Heartbeat series UUID.") var uuid: String
    @Option(help: "json or csv.") var format: String = "csv"

    func run() async throws {
        try await runReporting {
            guard format == "json" || format == "csv" else { throw CLIError(.failed, "--format is json or csv") }
            let r = try await global.transport().call(BeatsCall.self, UUIDParams(uuid: uuid))
            if format == "json" || global.json {
                printJSON(.array(r.beats.map { .object(["offset": JSONBridge.value($0.offset), "precededByGap": .bool($0.precededByGap)]) }))
            } else {
                print(Self.csv(r), terminator: "")
            }
        }
    }

    /// The beats as CSV: a header line, then one line per beat, each ending in a newline.
    static func csv(_ r: BeatsCall.Result) -> String {
        var out = "offset_s,preceded_by_gap\n"
        for b in r.beats { out += "\(b.offset),\(b.precededByGap)\n" }
        return out
    }
}

struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Statistics over a range, or per interval (--interval 1h) aligned to an anchor.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var range: RangeOptions
    @Option(help: "heart-rate (default), energy or hrv.") var type: String?
    @Option(help: "Bucket size: 90s, 15m, 1h, 1d, or seconds.") var interval: String?
    @Option(parsing: .unconditional, help: "Bucket anchor date (default: midnight UTC of --from).") var anchor: String?
    @OptionGroup var filter: SampleFilterOptions
    @Flag(help: "Also statistics per device (HealthKit's separateBySource): a strap and a second sensor worn together.")
    var byDevice = false

    func run() async throws {
        try await runReporting {
            var p = StatsCall.Params(StatsCall.Options(type: type, anchor: anchor.map(QueryDate.text), byDevice: byDevice ? true : nil),
                                     range: filter.scope(range))
            if let interval {
                guard let seconds = parseDuration(interval) else { throw CLIError(.failed, "--interval: use 90s, 15m, 1h, 1d or seconds") }
                p.interval = seconds
            }
            let transport = try global.transport()
            if global.json { return printJSON(try await transport.json(StatsCall.self, p)) }
            // The typed answer (with --db the store's, never a JSON tree), printed alike from the socket and the store.
            print(Self.text(try await transport.call(StatsCall.self, p), byDevice: byDevice))
        }
    }

    /// The statistics as a table under a `type (unit)` line; with `byDevice` a DEVICE column: the rows of all devices
    /// together, then each device's. Then how many open series it left out, if any.
    static func text(_ r: StatsCall.Result, byDevice: Bool) -> String {
        var sections: [(String, QuantityStatistics?, [QuantityStatistics]?)] = [("all", r.statistics, r.buckets)]
        for d in r.devices ?? [] {
            sections.append(("\(d.device)\(d.name.map { " (\($0))" } ?? "")", d.statistics, d.buckets))
        }
        let columns = ["START", "END", "COUNT", "AVERAGE", "MIN", "MAX", "MOST RECENT", "SUM"]
        var table = Table(byDevice ? ["DEVICE"] + columns : columns)
        for (device, statistics, buckets) in sections {
            for s in buckets ?? (statistics.map { [$0] } ?? []) {
                let row = [ExportDates.iso(s.start), ExportDates.iso(s.end), String(s.count), Table.number(s.average),
                           Table.number(s.minimum), Table.number(s.maximum), Table.number(s.mostRecent), Table.number(s.sum)]
                table.add(byDevice ? [device] + row : row)
            }
        }
        var lines = ["\(r.type) (\(r.unit))", table.render()]
        if let open = r.openSeries, open > 0 {
            lines.append("\(open) series still open (capturing now) are not included until they finish")
        }
        return lines.joined(separator: "\n")
    }
}

func parseDuration(_ s: String) -> Double? {
    if let v = Double(s), v > 0 { return v }
    guard let unit = s.last, let n = Double(s.dropLast()), n > 0 else { return nil }
    switch unit {
    case "s": return n
    case "m": return n * 60
    case "h": return n * 3600
    case "d": return n * 86400
    default: return nil
    }
}

struct Changes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Samples added and deleted since an anchor, and the new anchor (JSON).")
    @OptionGroup var global: GlobalOptions
    @Option(help: "The anchor a previous call returned (0 = everything).") var anchor: Int = 0
    @Option(help: "At most this many added samples.") var limit: Int = 1000

    func run() async throws {
        try await runReporting {
            printJSON(try await global.transport().json(ChangesCall.self, ChangesCall.Params(anchor: Int64(anchor), limit: limit)))
        }
    }
}

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete a sample (leaves a tombstone for sync; needs the admin group).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Sample UUID.") var uuid: String

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().call(DeleteCall.self, UUIDParams(uuid: uuid))
            guard r.deleted else { throw CLIError(.notFound, "no sample \(uuid)") }
            global.json ? printJSON(JSONBridge.value(r)) : print("deleted \(uuid)")
        }
    }
}
