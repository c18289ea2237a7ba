import ArgumentParser
import Foundation
import HeartQueries

/// `heartctl nearby [--seconds N]`: the heart-rate sensors in range heartd does not capture, to allow one without
/// `bluetoothctl`.
struct Nearby: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scan for heart-rate sensors in range that heartd does not capture (needs session access).",
        discussion: "Then `heartctl allow ADDRESS` captures one and `heartctl people assign PERSON ADDRESS` names its wearer.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "How long to scan, \(Int(NearbyCall.secondsRange.lowerBound)) to \(Int(NearbyCall.secondsRange.upperBound)) seconds.")
    var seconds: Double = NearbyCall.defaultSeconds

    func validate() throws {
        guard NearbyCall.secondsRange.contains(seconds) else {
            throw ValidationError("--seconds must be \(Int(NearbyCall.secondsRange.lowerBound)) to \(Int(NearbyCall.secondsRange.upperBound))")
        }
    }

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().json(NearbyCall.self, NearbyCall.Params(seconds: seconds))
            if global.json { return printJSON(r) }
            let result = try typedResult(NearbyCall.self, r)
            var table = Table("ADDRESS", "NAME", "RSSI", "ADAPTER", "PERSON")
            for d in result.devices {
                table.add([d.address, d.name ?? "-", d.rssi.map { "\($0) dBm" } ?? "-", d.adapter, d.person?.name ?? "-"])
            }
            print(result.devices.isEmpty ? "no heart-rate sensor in range that heartd does not capture" : table.render())
        }
    }
}
