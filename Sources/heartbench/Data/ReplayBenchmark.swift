import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `heartd replay` of a real-RR day against the naive importer (`scripts/bench/naive_import.py`: Python,
/// `json.loads` per line, one row per beat and per heart-rate value, `executemany`, one commit), both run as
/// the processes a user would run, on the same file, in the same run: wall time and CPU (user + system, from
/// the children's rusage), median of `runs` alternating runs; then the bytes each leaves on disk.
struct ReplayBenchmark {
    struct Timing {
        var wall: Double
        var cpu: Double
    }

    struct Result {
        var heartd: Timing
        var naive: Timing
        var heartdRuns: [Timing]
        var naiveRuns: [Timing]
        /// The whole store after the replay's clean end: database, WAL and open-series journal.
        var heartdBytes: Int64
        var naiveBytes: Int64
        var heartdStore: String
        var heartdOutput: String
        var naiveOutput: String
    }

    let workspace: Workspace
    let runs: Int

    func run(file: String) throws -> Result {
        let heartd = try Self.executable("heartd")
        let script = Self.naiveScript()
        guard FileManager.default.fileExists(atPath: script) else { throw BenchmarkError("no naive importer at \(script)") }
        var heartdRuns: [Timing] = [], naiveRuns: [Timing] = []
        var heartdOutput = "", naiveOutput = ""
        var store = "", naiveStore = ""
        for k in 0..<max(runs, 1) {
            store = workspace.path("replay-\(k).sqlite")
            naiveStore = workspace.path("naive-import-\(k).sqlite")
            let n = try Self.timed("/usr/bin/env", ["python3", script, file, naiveStore])
            naiveRuns.append(n.timing)
            naiveOutput = n.output
            let h = try Self.timed(heartd, ["replay", "--db", store, file])
            heartdRuns.append(h.timing)
            heartdOutput = h.output
        }
        return Result(heartd: Self.median(heartdRuns), naive: Self.median(naiveRuns), heartdRuns: heartdRuns,
                      naiveRuns: naiveRuns, heartdBytes: Self.bytes(store, suffixes: ["", "-wal", "-open", "-journal"]),
                      naiveBytes: Self.bytes(naiveStore, suffixes: ["", "-journal", "-wal"]), heartdStore: store,
                      heartdOutput: heartdOutput, naiveOutput: naiveOutput)
    }

    /// Runs a process to its end: wall time, its CPU time, its standard output. Fails on a non-zero exit.
    static func timed(_ path: String, _ arguments: [String]) throws -> (timing: Timing, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        let before = childrenCPU()
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let wall = (clock.now - start).seconds
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("\(path) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return (Timing(wall: wall, cpu: childrenCPU() - before),
                String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// User + system seconds of every child waited for so far.
    private static func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    private static func median(_ runs: [Timing]) -> Timing {
        Timing(wall: runs.map(\.wall).sorted()[runs.count / 2], cpu: runs.map(\.cpu).sorted()[runs.count / 2])
    }

    private static func bytes(_ path: String, suffixes: [String]) -> Int64 {
        suffixes.reduce(0) { total, suffix in
            let size = (try? FileManager.default.attributesOfItem(atPath: path + suffix))?[.size] as? NSNumber
            return total + (size?.int64Value ?? 0)
        }
    }

    /// A product built beside this executable (`.build/<config>/heartd`).
    static func executable(_ name: String) throws -> String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchmarkError("\(path) not found: build it (`swift build -c release --product \(name)`)")
        }
        return path
    }

    /// `scripts/bench/naive_import.py` of the checkout this was built from.
    static func naiveScript(sourceFile: String = #filePath) -> String {
        var root = URL(fileURLWithPath: sourceFile)
        for _ in 0..<4 { root.deleteLastPathComponent() }  // Sources/heartbench/Data/<file>
        return root.appendingPathComponent("scripts/bench/naive_import.py").path
    }
}
