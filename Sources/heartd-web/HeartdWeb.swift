import ArgumentParser
import Foundation
import HeartdCommandLine
import HeartQueries
import LiveFeed
import Logging
import NIOSSL
import ServiceLifecycle
import Web
import WebConfig

/// `heartd-web`: the live dashboard, overlay and WebSocket API (docs/WEB.md). Its own program, process and unit
/// (systemd/heartd-web.service): network, no Bluetooth, no store; a client of heartd's control socket.
struct HeartdWeb: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heartd-web", abstract: "Serve the live room page, the overlay and the WebSocket API ([web] settings).",
        discussion: """
        Reads [web] and control.socket from the same heartd.toml as heartd (`heartd check-config` shows it).
        Exit status: 0 when a signal stopped it; 1 on an error (a credential file unreadable, the address taken); \
        64 on a bad option or configuration; 65 when web.host is not loopback and no credential is configured.
        """,
        version: HeartdVersion.string,
        subcommands: [Serve.self, HashPassword.self],
        defaultSubcommand: Serve.self)
}

extension HeartdWeb {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "serve", abstract: "Serve (the default).")

        @OptionGroup var options: ConfigOptions

        func run() async throws {
            let configuration = try options.load()
            let logger = bootstrapLogging(configuration)
            let settings = configuration.web
            let environment = ProcessInfo.processInfo.environment
            let credentials: WebCredentials
            let tls: TLSConfiguration?
            do throws(WebError) {
                credentials = try WebCredentials.load(settings, environment: environment)
                try WebCredentials.checkBind(settings, credentials)
                tls = try WebTLS.configuration(settings, environment: environment)
            } catch {
                logger.critical("heartd-web refuses to start", metadata: ["code": "\(error.code.rawValue)", "error": "\(error.detail)"])
                throw ExitCode(error.exitStatus)
            }
            let socketPath = configuration.controlSocketPath(environment: environment)
            let feed = LiveFeed(settings: LiveFeedSettings(socketPath: socketPath), logger: logger)
            let fanout = LiveFanout(source: feed, hrmax: HRMaxTable(defaultBPM: settings.hrmaxDefault, byDevice: settings.hrmaxByDevice),
                                    clientBuffer: settings.clientBuffer, people: EffortPeople(settings: settings), logger: logger)
            let web = WebApplication(settings: settings, credentials: credentials, fanout: fanout,
                                     control: ControlSessionControl(socketPath: socketPath), tls: tls,
                                     people: ControlPeopleControl(socketPath: socketPath), logger: logger)
            let host = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
            let scheme = tls == nil ? "http" : "https"
            let app = try web.application { port in
                logger.notice("heartd-web listening", metadata: ["url": "\(scheme)://\(host):\(port)/", "socket": "\(socketPath)"])
                FileHandle.standardOutput.write(Data("heartd-web: room page at \(scheme)://\(host):\(port)/\n".utf8))
            }
            let group = ServiceGroup(configuration: ServiceGroupConfiguration(
                services: [.init(service: feed), .init(service: fanout, successTerminationBehavior: .gracefullyShutdownGroup),
                           .init(service: app)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
            do {
                try await group.run()
            } catch {
                logger.error("heartd-web stopped", metadata: ["code": "\(WebError.Code.listen.rawValue)", "error": "\(error)"])
                throw ExitCode.failure
            }
        }
    }

    /// `heartd-web hash-password`: reads a password from standard input, prints its bcrypt hash for
    /// web.coach_password_file / the web-coach-password credential.
    struct HashPassword: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "hash-password",
                                                        abstract: "Print the bcrypt hash of the password read from standard input.")

        @Option(help: "bcrypt cost (4–31).") var cost: UInt8 = 12

        func run() throws {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw ValidationError("give the password on standard input")
            }
            guard (4...31).contains(cost) else { throw ValidationError("--cost must be between 4 and 31") }
            print(WebCredentials.hash(line, cost: cost))
        }
    }
}
