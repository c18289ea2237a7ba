import ArgumentParser
import Control
import Foundation
import HealthModel
import HeartQueries
import HeartRate

struct HRV: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "HRV: artifacts classified and corrected, then time, frequency, Poincaré and DFA measures; never across a gap.",
        discussion: """
            From an RR file (one RR in ms per line; no daemon needed; always JSON), one heartbeat series (UUID), or a \
            range. The first row is the recorded RR chain; the artifact line and the CORRECTED row are computed from \
            the NN intervals after Lipponen–Tarvainen correction, FREQUENCY from their Welch spectrum (resampled at 4 Hz) \
            and their Lomb–Scargle periodogram (at their own times, 5-minute windows) (docs/HRV.md).
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var range: RangeOptions
    @OptionGroup var filter: SampleFilterOptions
    @Option(help: "A file with one RR interval in ms per line.") var rrFile: String?
    @Argument(help: "A heartbeat series UUID.") var uuid: String?

    func run() async throws {
        try await runReporting {
            if let rrFile { return printJSON(JSONBridge.value(try HRV.fromFile(rrFile))) }
            let params = HRVCall.Params(HRVCall.Options(uuid: uuid), range: filter.scope(range))
            let transport = try global.transport()
            if global.json { return printJSON(try await transport.json(HRVCall.self, params)) }
            // The typed answer (with --db the store's, never a JSON tree), printed alike from the socket and the store.
            print(HRV.text(try await transport.call(HRVCall.self, params)))
        }
    }

    /// The recorded RR chain's measures as a table, then the analysis (`render`) when there is one.
    static func text(_ r: HRVCall.Result) -> String {
        var table = Table("BEATS", "SDNN ms", "RMSSD ms", "pNN50 %", "MEAN HR")
        table.add([String(r.count), Table.number(r.sdnnMs), Table.number(r.rmssdMs), Table.number(r.pnn50Percent),
                   Table.number(r.meanHeartRateBpm)])
        return [table.render(), r.analysis.map(render)].compactMap { $0 }.joined(separator: "\n")
    }

    /// The artifact classes the summary line names, in its order.
    static let artifactClasses: [RRArtifactClass] = [.ectopic, .long, .short, .missed, .extra]

    /// The artifact summary and the corrected measures of an analysis as text.
    static func render(_ a: HRVAnalysis) -> String {
        let artifacts = a.artifacts, time = a.time, poincare = a.poincare
        let classes = artifactClasses.map { "\($0.rawValue) \(artifacts.classes[$0.rawValue] ?? 0)" }
        var lines = ["ARTIFACTS  \(artifacts.intervals) intervals, \(artifacts.corrected) corrected "
            + "(\(fixed(artifacts.correctedPercent, 2)) %): " + classes.joined(separator: ", ")]
        if let warning = artifacts.warning { lines.append("WARNING    \(warning)") }
        var table = Table("CORRECTED", "MEAN NN", "MEDIAN NN", "SDNN ms", "RMSSD ms", "pNN50 %", "pNN20 %", "SD1 ms", "SD2 ms",
                          "SD1/SD2", "DFA a1", "DFA a2")
        table.add([String(time.metrics.count), Table.number(time.meanNNMs), Table.number(time.medianNNMs),
                   Table.number(time.metrics.sdnnMs), Table.number(time.metrics.rmssdMs), Table.number(time.metrics.pnn50Percent),
                   Table.number(time.pnn20Percent), Table.number(poincare?.sd1Ms), Table.number(poincare?.sd2Ms),
                   fixed(poincare?.sd1sd2Ratio, 3), fixed(a.dfaAlpha1, 3), fixed(a.dfaAlpha2, 3)])
        lines.append(table.render())
        let spectra = [("welch 4 Hz", a.frequency), ("lomb-scargle", a.lombScargle)].compactMap { name, f in f.map { (name, $0) } }
        if !spectra.isEmpty {
            var spectrum = Table("FREQUENCY", "VLF ms2", "LF ms2", "HF ms2", "LF %", "HF %", "LF nu", "HF nu", "LF/HF",
                                 "LF peak Hz", "HF peak Hz")
            for (name, f) in spectra {
                spectrum.add([name, Table.number(f.vlfMs2), Table.number(f.lfMs2), Table.number(f.hfMs2), Table.number(f.lfPercent),
                              Table.number(f.hfPercent), Table.number(f.lfNu), Table.number(f.hfNu), fixed(f.lfHfRatio, 3),
                              fixed(f.lfPeakHz, 4), fixed(f.hfPeakHz, 4)])
            }
            lines.append(spectrum.render())
        }
        return lines.joined(separator: "\n")
    }

    /// `value` to `digits` decimals; a whole number as an integer (as the wire carries it), none or not finite as `-`.
    static func fixed(_ value: Double?, _ digits: Int) -> String {
        guard let value, value.isFinite else { return "-" }
        if let whole = Int(exactly: value) { return String(whole) }
        return String(format: "%.\(digits)f", value)
    }

    static func fromFile(_ path: String) throws -> HRVCall.Result {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError(.failed, "cannot read \(path)") }
        var rr: [Double] = []
        for (i, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.isEmpty || t.hasPrefix("#") { continue }
            guard let v = Double(t), v.isFinite, v > 0 else { throw CLIError(.failed, "\(path):\(i + 1): not an RR interval in ms: '\(t)'") }
            rr.append(v)
        }
        do {
            return HRVCall.Result(try HRVMetrics(rrIntervalsMs: rr), analysis: try HRVAnalysis(rrIntervalsMs: rr))
        } catch {
            throw CLIError(.failed, "\(path): \(error)")
        }
    }
}

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode Heart Rate Measurement (0x2A37) payloads given in hex; one JSON object per payload.",
        discussion: "Exit status 1 if any payload is invalid.")
    @Argument(help: "Payloads in hex, e.g. 16485401ec02.") var payloads: [String]

    func run() throws {
        var invalid = false
        for hex in payloads {
            guard let bytes = Decode.bytes(hex) else {
                invalid = true
                printJSON(.object(["hex": .string(hex), "error": .string("not hex: \(hex)")]))
                continue
            }
            do {
                let m = try HeartRateMeasurement(decoding: bytes)
                printJSON(.object([
                    "hex": .string(hex), "bpm": .int(Int(m.bpm)), "contact": .string(m.contact.rawValue),
                    "energy_kj": m.energyKilojoules.map { .int(Int($0)) } ?? .null,
                    "rr_1024": .array(m.rrIntervals.map { .int(Int($0)) }),
                ]))
            } catch {
                invalid = true
                printJSON(.object(["hex": .string(hex), "error": .string(error.description)]))
            }
        }
        if invalid { throw ExitCode(1) }
    }

    static func bytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.lowercased().filter { $0 != " " && $0 != ":" })
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let b = UInt8(String(digits[i...i + 1]), radix: 16) else { return nil }
            out.append(b)
        }
        return out
    }
}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export samples: csv, jsonl, rr (one RR ms per line), healthkit-xml (Apple Health export.xml) or fit (Garmin FIT).",
        discussion: "Whole samples overlapping the range are exported. Progress goes to stderr.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var range: RangeOptions
    @Option(help: "csv, jsonl, rr, healthkit-xml or fit.") var format: String = "csv"
    @Option(name: .shortAndLong, help: "Write to this file instead of stdout.") var output: String?
    @OptionGroup var filter: SampleFilterOptions

    func run() async throws {
        try await runReporting {
            guard ExportFormat(rawValue: format) != nil else {
                throw CLIError(.failed, "unknown format '\(format)': use \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let out: FileHandle
            if let output {
                guard FileManager.default.createFile(atPath: output, contents: nil),
                      let h = FileHandle(forWritingAtPath: output) else { throw CLIError(.failed, "cannot write \(output)") }
                out = h
            } else {
                out = FileHandle.standardOutput
            }
            let params = ExportCall.Params(ExportCall.Options(format: ExportFormat(rawValue: format)), range: filter.scope(range))
            var samples = 0
            // The daemon keeps the connection open after the export's "end" event: stop reading there.
            events: for try await event in try await global.exportStream(params) {
                switch event.name {
                case "chunk":
                    if let base64 = event.fields["base64"]?.stringValue {
                        guard let bytes = Data(base64Encoded: base64) else { throw CLIError(.failed, "export: a chunk is not base64") }
                        out.write(bytes)
                    } else {
                        out.write(Data((event.fields["text"]?.stringValue ?? "").utf8))
                    }
                case "progress":
                    samples = event.fields["done"]?.intValue ?? samples
                    if let total = event.fields["total"]?.intValue, total > 0, output != nil {
                        FileHandle.standardError.write(Data("\rexporting: \(samples)/\(total) samples".utf8))
                    }
                case "end":
                    samples = event.fields["samples"]?.intValue ?? samples
                    break events
                case "error": throw CLIError(.failed, event.fields["message"]?.stringValue ?? "export failed")
                default: break
                }
            }
            try? out.synchronize()
            FileHandle.standardError.write(Data("\(output != nil ? "\r" : "")exported \(samples) samples\n".utf8))
            // Series still being captured are stored, and exported, when they finish: say how many were left out.
            guard global.db == nil else { return }
            let scope = filter.scope(range)
            let listed = try await global.transport().call(SeriesCall.self, SeriesCall.Params(
                device: scope.device, from: scope.from, to: scope.to, limit: 0, session: scope.session, metadata: scope.metadata,
                includeOpen: true))
            if let open = listed.open, open > 0 {
                FileHandle.standardError.write(Data("\(open) series still open (capturing now) are not included; they are exported once they finish\n".utf8))
            }
        }
    }
}

extension GlobalOptions {
    /// Export events: from the daemon's socket, or produced locally from the store file with --db.
    func exportStream(_ params: ExportCall.Params) async throws -> AsyncThrowingStream<ControlEvent, any Error> {
        let transport = try transport()
        guard let offline = transport as? OfflineTransport else { return try await transport.stream(ExportCall.self, params) }
        return offline.queries.exportEvents(JSONBridge.params(params))
    }
}
