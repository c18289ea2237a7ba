import Foundation

/// What a result depends on besides the code: date, CPU, cores, OS, build configuration, SQLite.
struct MachineInfo: Sendable {
    var date: Date
    var cpu: String
    var cores: Int
    var activeCores: Int
    var memoryGiB: Double
    var kernel: String
    var buildConfiguration: String
    var compiler: String
    /// 1/5/15-minute load averages when the run started (other work on the machine skews timings).
    var loadAverage: String

    static func current() -> MachineInfo {
        let info = ProcessInfo.processInfo
        #if DEBUG
        let configuration = "debug (figures not representative)"
        #else
        let configuration = "release"
        #endif
        return MachineInfo(
            date: Date(), cpu: cpuModel() ?? "unknown CPU", cores: info.processorCount,
            activeCores: info.activeProcessorCount, memoryGiB: Double(info.physicalMemory) / 1_073_741_824,
            kernel: kernelRelease() ?? info.operatingSystemVersionString,
            buildConfiguration: configuration, compiler: compilerVersion, loadAverage: loadAverages() ?? "unknown")
    }

    /// Markdown lines (a bulleted list).
    func markdown(sqliteVersion: String, command: String) -> String {
        let iso = ISO8601DateFormatter().string(from: date)
        return """
            - command: `\(command)`
            - date: \(iso)
            - machine: \(cpu), \(cores) cores (\(activeCores) active), \(Fmt.fixed(memoryGiB, 1)) GiB RAM, Linux \(kernel)
            - build: \(buildConfiguration), \(compiler), SQLite \(sqliteVersion)
            - load average at start: \(loadAverage)
            """
    }

    private static var compilerVersion: String {
        #if compiler(>=6.3)
        "Swift ≥ 6.3"
        #elseif compiler(>=6.0)
        "Swift 6.x"
        #else
        "Swift < 6"
        #endif
    }

    private static func cpuModel() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    private static func loadAverages() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    private static func kernelRelease() -> String? {
        (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
