import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import SyncConfig

/// Opens connections to the central PostgreSQL from a `CentralURL`, a TLS mode and a password, and maps
/// PostgresNIO's errors to `SyncError`s (never echoing the password).
public struct CentralConnector: Sendable {
    public let url: CentralURL
    public let tls: SyncSettings.TLSMode
    public let caFile: String
    let password: String?
    public let timeoutSeconds: Double

    public init(url: CentralURL, tls: SyncSettings.TLSMode, caFile: String = "", password: String?, timeoutSeconds: Double) {
        self.url = url
        self.tls = tls
        self.caFile = caFile
        self.password = password
        self.timeoutSeconds = timeoutSeconds
    }

    /// From the `[sync]` settings: parses the URL and reads the password file.
    public init(settings: SyncSettings, environment: [String: String]) throws(SyncError) {
        self.init(url: try CentralURL(settings.url), tls: settings.tls, caFile: settings.caFile,
                  password: try settings.password(environment: environment), timeoutSeconds: settings.timeoutSeconds)
    }

    /// A new connection, or a `SyncError` (`.connection`, `.timeout`, `.authentication`, `.tls`).
    public func connect(logger: Logger) async throws(SyncError) -> PostgresConnection {
        let configuration: PostgresConnection.Configuration
        do {
            var c = PostgresConnection.Configuration(
                host: url.host, port: url.port, username: url.user, password: password, database: url.database,
                tls: try tlsSetting())
            c.options.connectTimeout = .milliseconds(Int64(timeoutSeconds * 1000))
            configuration = c
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.tls, "the TLS settings cannot be used: \(error)")
        }
        do {
            // The connect timeout covers TCP; the login exchange is bounded by the same deadline.
            return try await Deadline.run(seconds: timeoutSeconds, what: "connecting to \(url)") {
                try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            }
        } catch {
            throw Self.map(error, context: "connecting to \(url)")
        }
    }

    private func tlsSetting() throws -> PostgresConnection.Configuration.TLS {
        switch tls {
        case .disable:
            return .disable
        case .require, .verifyFull:
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = tls == .require ? .none : .fullVerification
            if !caFile.isEmpty {
                guard FileManager.default.isReadableFile(atPath: caFile) else {
                    throw SyncError(.tls, "cannot read the CA file \(caFile)")
                }
                configuration.trustRoots = .file(caFile)
            }
            return .require(try NIOSSLContext(configuration: configuration))
        }
    }

    private static func isConnectTimeout(_ error: ChannelError) -> Bool {
        if case .connectTimeout = error { return true }
        return false
    }

    /// Any error met while talking to the server, as a `SyncError`.
    public static func map(_ error: any Error, context: String) -> SyncError {
        switch error {
        case let e as SyncError:
            return e
        case let e as PostgresTransactionError:
            if let inner = e.closureError ?? e.beginError ?? e.commitError { return map(inner, context: context) }
            return SyncError(.server, "\(context): \(e)")
        case let e as PSQLError:
            if let state = e.serverInfo?[.sqlState] {
                let message = e.serverInfo?[.message] ?? ""
                // 28xxx: invalid authorization; 3D000: no such database.
                if state.hasPrefix("28") || state == "3D000" {
                    return SyncError(.authentication, "\(context): \(message) (SQLSTATE \(state))")
                }
                // 57P01..57P03: the server is shutting down or terminated this backend; 08xxx: connection exceptions.
                if state.hasPrefix("57P") || state.hasPrefix("08") {
                    return SyncError(.connection, "\(context): \(message) (SQLSTATE \(state))")
                }
                return SyncError(.server, "\(context): \(message) (SQLSTATE \(state))")
            }
            switch e.code {
            case .sslUnsupported, .failedToAddSSLHandler:
                return SyncError(.tls, "\(context): the server does not offer TLS (\(e.code))")
            case .authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError:
                return SyncError(.authentication, "\(context): \(e.code)")
            case .connectionError where (e.underlying as? ChannelError).map(Self.isConnectTimeout) == true:
                // PostgresNIO's connect deadline (TCP and login): a stalled network, as our own deadline says.
                return SyncError(.timeout, "\(context): no answer within the connect timeout")
            default:
                let underlying = e.underlying.map { " (\($0))" } ?? ""
                return SyncError(.connection, "\(context): \(e.code)\(underlying)")
            }
        case let e as ChannelError:
            return SyncError(.connection, "\(context): \(e)")
        case is CancellationError:
            return SyncError(.timeout, "\(context): cancelled")
        default:
            return SyncError(.connection, "\(context): \(error)")
        }
    }
}

/// A deadline for network operations: a stalled peer must end in a timeout, not a hang.
enum Deadline {
    /// Runs `body`; after `seconds`, calls `onTimeout` (which should make `body` end, e.g. by closing its
    /// connection) and throws `SyncError(.timeout)` at once — without waiting for `body`, which finishes on its
    /// own (a task group would wait for it, and a query on a dead connection may take its time to fail).
    static func run<T: Sendable>(seconds: Double, what: String, onTimeout: @escaping @Sendable () -> Void = {},
                                 _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = Race<T>()
        let work = Task { race.finish(await Result(catching: body)) }
        let timer = Task {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            onTimeout()
            race.finish(.failure(SyncError(.timeout, "\(what): no answer within \(Deadline.format(seconds)) s")))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await race.value()
        } onCancel: {
            work.cancel()
            race.finish(.failure(CancellationError()))
        }
    }

    static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
    }
}

/// The first of several results, handed to one waiter.
private final class Race<T: Sendable>: @unchecked Sendable {  // state guarded by `lock`
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private var waiter: CheckedContinuation<T, any Error>?

    func finish(_ outcome: Result<T, any Error>) {
        let resume: CheckedContinuation<T, any Error>? = lock.withLock {
            guard result == nil else { return nil }
            result = outcome
            defer { waiter = nil }
            return waiter
        }
        resume?.resume(with: outcome)
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<T, any Error>? = lock.withLock {
                if let result { return result }
                waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
