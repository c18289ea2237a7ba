import ArgumentParser
import Control
import Foundation
import HeartQueries
import HeartStore
import Sync

/// `--socket` / `--db`: where heartctl gets its answers.
struct GlobalOptions: ParsableArguments {
    static let defaultSocket = "/run/heartd/control.sock"

    @Option(name: .long, help: "The daemon's control socket (default: $HEARTD_SOCKET or /run/heartd/control.sock).")
    var socket: String?

    @Option(name: .long, help: "Read a store file directly, read-only, without the daemon.")
    var db: String?

    @Option(name: .long, help: "Read the central PostgreSQL instead: postgres://user@host[:port]/database (docs/CENTRAL.md).")
    var central: String?

    @Option(name: .long, help: "With --central: only this gateway's samples.")
    var gateway: String?

    @Option(name: .long, help: "With --central: disable, require or verify-full (default verify-full).")
    var centralTls: String?

    @Option(name: .long, help: "With --central: CA certificate (PEM) for verify-full.")
    var caFile: String?

    @Option(name: .long, help: "With --central: file holding the password (default: $HEARTD_CENTRAL_PASSWORD_FILE).")
    var passwordFile: String?

    @Flag(name: .long, help: "JSON output for scripts.")
    var json = false

    func transport() throws -> any Transport {
        if let central { return try centralTransport(central) }
        if let db {
            guard FileManager.default.fileExists(atPath: db) else { throw CLIError(.failed, "no store at \(db)") }
            do {
                return OfflineTransport(queries: StoreQueries(database: try HeartDatabase.openReadOnly(path: db)))
            } catch {
                throw CLIError(.failed, "cannot open \(db): \(error)")
            }
        }
        let path = socket ?? ProcessInfo.processInfo.environment["HEARTD_SOCKET"] ?? Self.defaultSocket
        do {
            return SocketTransport(client: try ControlClient(path: path))
        } catch where error.code == .permissionDenied {
            throw CLIError(.denied, "permission denied: heartd at \(path): \(error.detail)")
        } catch {
            throw CLIError(.unreachable, "cannot reach heartd at \(path): \(error) (is it running? try --db PATH to read a store file)")
        }
    }
}

extension GlobalOptions {
    func centralTransport(_ url: String) throws -> CentralTransport {
        var settings = SyncSettings()
        settings.url = url
        settings.caFile = caFile ?? ""
        settings.passwordFile = passwordFile ?? ProcessInfo.processInfo.environment["HEARTD_CENTRAL_PASSWORD_FILE"] ?? ""
        if let centralTls {
            guard let mode = SyncSettings.TLSMode(rawValue: centralTls) else {
                throw CLIError(.failed, "--central-tls must be disable, require or verify-full")
            }
            settings.tls = mode
        }
        do {
            return CentralTransport(connector: try CentralConnector(settings: settings, environment: [:]), gateway: gateway)
        } catch {
            throw CLIError(.failed, "--central: \(error)")
        }
    }
}

/// Runs a command body, turning errors into messages and documented exit codes.
func runReporting(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as CLIError {
        FileHandle.standardError.write(Data("heartctl: \(error.message)\n".utf8))
        throw ExitCode(error.code.rawValue)
    } catch let error as ControlError {
        FileHandle.standardError.write(Data("heartctl: \(error.code.rawValue): \(error.message)\n".utf8))
        let code: CLIError.Code = switch error.code {
        case .notFound: .notFound
        case .permissionDenied: .denied
        default: .failed
        }
        throw ExitCode(code.rawValue)
    } catch let error as ControlSocketError {
        FileHandle.standardError.write(Data("heartctl: connection to heartd failed: \(error)\n".utf8))
        throw ExitCode(CLIError.Code.unreachable.rawValue)
    }
}

/// Prints a JSON value on one line (sorted keys), as `--json` does everywhere, and flushes it: stdout is
/// block-buffered when it is a pipe, and `heartctl watch --json | jq` must see every event at once.
func printJSON(_ value: JSONValue) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if let data = try? encoder.encode(value) { print(String(decoding: data, as: UTF8.self)) }
    fflush(nil)
}
