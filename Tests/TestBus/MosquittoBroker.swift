import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Shared by MQTTTests and MQTTBridgeTests.
/// A real mosquitto (Debian's `mosquitto` package) in a temporary directory, on two free ports of 127.0.0.1: a plain
/// listener and a TLS one (a test CA made by `openssl`, the server's certificate for `localhost` and 127.0.0.1). Both
/// need a user name and password (`mosquitto_passwd`). Stopped at `stop()`, deinit or process exit.
public final class MosquittoBroker: @unchecked Sendable {  // `process` changes only in start/stop, called by one test
    public static let user = "heartd"
    public static let password = "mqtt-test-password"

    public let dir: String
    public let port: Int
    public let tlsPort: Int
    /// The CA that signed the broker's certificate, and one that did not.
    public var caFile: String { dir + "/ca.crt" }
    public var otherCAFile: String { dir + "/other-ca.crt" }
    public var logFile: String { dir + "/mosquitto.log" }
    private var process: ChildProcess?

    /// `persistence`: the broker saves retained messages and persistent sessions at a clean stop (a restart keeps them).
    public init(persistence: Bool = false) throws {
        for tool in ["/usr/sbin/mosquitto", "/usr/bin/mosquitto_passwd", "/usr/bin/mosquitto_sub", "/usr/bin/mosquitto_pub"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw TestFailure("\(tool) is missing: scripts/setup.sh installs Debian's mosquitto and mosquitto-clients")
        }
        dir = "/tmp/hd-mqtt-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        port = PostgresServer.freePort()
        var other = PostgresServer.freePort()
        while other == port { other = PostgresServer.freePort() }
        tlsPort = other
        try makeCertificates()
        let passwd = Self.run("/usr/bin/mosquitto_passwd", ["-c", "-b", dir + "/passwd", Self.user, Self.password])
        guard passwd.status == 0 else { throw TestFailure("mosquitto_passwd failed: \(passwd.output)") }
        chmod(dir + "/passwd", 0o600)
        let config = """
        per_listener_settings false
        allow_anonymous false
        password_file \(dir)/passwd
        persistence \(persistence)
        persistence_location \(dir)/
        autosave_interval 0
        \(getuid() == 0 ? "user root" : "")
        log_dest file \(logFile)
        log_type all
        listener \(port) 127.0.0.1
        listener \(tlsPort) 127.0.0.1
        cafile \(caFile)
        certfile \(dir)/server.crt
        keyfile \(dir)/server.key

        """
        try config.write(toFile: dir + "/mosquitto.conf", atomically: true, encoding: .utf8)
        Self.register(self)
        try start()
    }

    /// Starts the broker (again) on the same ports; returns once both listeners accept connections.
    public func start() throws {
        let process = try ChildProcess("/usr/sbin/mosquitto", ["-c", dir + "/mosquitto.conf"])
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.accepts(port: port) && Self.accepts(port: tlsPort) { return }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        throw TestFailure("mosquitto did not start: \(log.suffix(2000))")
    }

    /// SIGTERM (a clean stop: persistence saved) or SIGKILL; waits for the exit.
    public func stop(kill: Bool = false) {
        process?.stop(kill ? SIGKILL : SIGTERM)
        process = nil
    }

    /// A `mosquitto_sub` on every topic (or `topics`), printing each message as `retain|qos|topic|payload`.
    public func subscriber(topics: [String] = ["#"], qos: Int = 0, persistentID: String? = nil) throws -> MQTTSubscriber {
        try MQTTSubscriber(broker: self, topics: topics, qos: qos, persistentID: persistentID)
    }

    /// Publishes one message with `mosquitto_pub`.
    public func publish(topic: String, payload: String, retain: Bool = false) throws {
        let result = Self.run("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(port)", "-u", Self.user, "-P", Self.password,
                                                         "-t", topic, "-m", payload] + (retain ? ["-r"] : []))
        guard result.status == 0 else { throw TestFailure("mosquitto_pub failed: \(result.output)") }
    }

    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private func makeCertificates() throws {
        let ext = dir + "/san.cnf"
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: ext, atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let steps: [[String]] = [
            ["req", "-x509"] + ec + ["-keyout", dir + "/ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=heartd test CA"],
            ["req", "-x509"] + ec + ["-keyout", dir + "/other-ca.key", "-out", otherCAFile, "-days", "2", "-subj", "/CN=another CA"],
            ["req"] + ec + ["-keyout", dir + "/server.key", "-out", dir + "/server.csr", "-subj", "/CN=localhost"],
            ["x509", "-req", "-in", dir + "/server.csr", "-CA", caFile, "-CAkey", dir + "/ca.key", "-CAcreateserial",
             "-out", dir + "/server.crt", "-days", "2", "-extfile", ext],
        ]
        for step in steps {
            let result = Self.run("/usr/bin/openssl", step)
            guard result.status == 0 else { throw TestFailure("openssl \(step.first ?? "") failed: \(result.output)") }
        }
    }

    static func run(_ path: String, _ arguments: [String]) -> (status: Int32, output: String) {
        PostgresServer.run(path, arguments)
    }

    private static let brokers = Registry()
    private static func register(_ broker: MosquittoBroker) {
        brokers.add(broker)
        _ = atExitInstalled
    }
    private static let atExitInstalled: Void = {
        atexit { MosquittoBroker.brokers.stopAll() }
    }()

    final class Registry: @unchecked Sendable {
        private let lock = NSLock()
        private var brokers: [Weak] = []
        struct Weak { weak var broker: MosquittoBroker? }
        func add(_ broker: MosquittoBroker) { lock.withLock { brokers = brokers.filter { $0.broker != nil } + [Weak(broker: broker)] } }
        func stopAll() {
            for entry in lock.withLock({ brokers }) { entry.broker?.remove() }
        }
    }

    /// Stops the broker and removes its directory.
    public func remove() {
        stop(kill: true)
        try? FileManager.default.removeItem(atPath: dir)
    }

    deinit { remove() }
}

/// One message as `mosquitto_sub` printed it.
public struct ObservedMessage: Sendable, Hashable {
    public var retained: Bool
    public var qos: Int
    public var topic: String
    public var payload: String

    public init(retained: Bool, qos: Int, topic: String, payload: String) {
        self.retained = retained
        self.qos = qos
        self.topic = topic
        self.payload = payload
    }
}

/// A `mosquitto_sub` process writing what it receives to a file; `messages()` reads it so far.
public final class MQTTSubscriber: @unchecked Sendable {  // set once in init
    let process: ChildProcess
    let output: String
    let broker: MosquittoBroker

    init(broker: MosquittoBroker, topics: [String], qos: Int, persistentID: String?) throws {
        self.broker = broker
        output = broker.dir + "/sub-\(UUID().uuidString.prefix(8)).txt"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        var arguments = ["-h", "127.0.0.1", "-p", "\(broker.port)", "-u", MosquittoBroker.user, "-P", MosquittoBroker.password,
                         "-q", "\(qos)", "-F", "%r|%q|%t|%p"]
        if let persistentID { arguments += ["-c", "-i", persistentID] }
        for topic in topics + ["test/ready"] { arguments += ["-t", topic] }
        process = try ChildProcess("/usr/bin/mosquitto_sub", arguments, output: output)
        // Subscribed once a marker published after the start comes back.
        let marker = UUID().uuidString
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            try broker.publish(topic: "test/ready", payload: marker)
            if all().contains(where: { $0.topic == "test/ready" && $0.payload == marker }) { return }
            usleep(50_000)
        }
        throw TestFailure("mosquitto_sub did not subscribe")
    }

    /// Every message received so far, in order (the readiness markers left out).
    public func messages() -> [ObservedMessage] { all().filter { $0.topic != "test/ready" } }

    private func all() -> [ObservedMessage] {
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            return ObservedMessage(retained: parts[0] == "1", qos: Int(parts[1]) ?? -1, topic: String(parts[2]),
                                   payload: String(parts[3]))
        }
    }

    /// The messages of one topic so far.
    public func messages(topic: String) -> [ObservedMessage] { messages().filter { $0.topic == topic } }

    deinit { process.stop(SIGKILL) }
}
