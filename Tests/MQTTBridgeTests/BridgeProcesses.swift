import Foundation
import TestBus
#if canImport(Glibc)
import Glibc
#endif

/// `heartd --simulate` and `heartd-mqtt` as child processes in one temporary directory, against a `MosquittoBroker`.
final class BridgeProcesses: @unchecked Sendable {  // set up once; processes only signalled after
    let dir: String
    let broker: MosquittoBroker
    private(set) var heartd: ChildProcess?
    private(set) var mqtt: ChildProcess?
    var socket: String { dir + "/control.sock" }
    var configPath: String { dir + "/heartd.toml" }
    var mqttLog: String { dir + "/heartd-mqtt.log" }

    init(broker: MosquittoBroker, mqttSettings: [String: String] = [:]) throws {
        self.broker = broker
        dir = "/tmp/hd-bridge-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try MosquittoBroker.password.write(toFile: dir + "/mqtt-password", atomically: true, encoding: .utf8)
        var mqtt: [String: String] = [
            "host": "\"127.0.0.1\"", "port": "\(broker.port)", "username": "\"\(MosquittoBroker.user)\"",
            "password_file": "\"\(dir)/mqtt-password\"", "keep_alive": "2", "beats": "true", "client_id": "\"bridge-test\"",
        ]
        mqtt.merge(mqttSettings) { _, new in new }
        let config = "[mqtt]\n" + mqtt.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: "\n") + "\n"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        heartd = try ChildProcess(try BuiltProducts.path("heartd"), [
            "--simulate", "--db", dir + "/heart.db", "--socket", socket, "--config", configPath,
            "--set", "control.group=\"\"", "--log-target", "stderr"], output: dir + "/heartd.log")
    }

    /// Starts `heartd-mqtt run`.
    func startBridge() throws {
        mqtt = try ChildProcess(try BuiltProducts.path("heartd-mqtt"), [
            "run", "--config", configPath, "--socket", socket, "--log-target", "stderr"], output: mqttLog)
    }

    /// `heartd-mqtt check` with extra `--set` overrides; its exit status.
    /// `heartd-mqtt check`'s exit status and what it printed.
    func check(_ settings: [String] = []) throws -> (status: Int32, output: String) {
        var arguments = ["check", "--config", configPath, "--log-target", "stderr"]
        for s in settings { arguments += ["--set", s] }
        return PostgresServer.run(try BuiltProducts.path("heartd-mqtt"), arguments)
    }

    func signalBridge(_ signal: Int32) {
        mqtt?.stop(signal)
    }

    func log() -> String { (try? String(contentsOfFile: mqttLog, encoding: .utf8)) ?? "" }

    deinit {
        mqtt?.stop(SIGKILL)
        heartd?.stop(SIGKILL)
        if ProcessInfo.processInfo.environment["HEARTD_KEEP_TEST_DIRS"] == nil { try? FileManager.default.removeItem(atPath: dir) }
    }
}
