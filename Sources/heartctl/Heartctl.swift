import ArgumentParser
import Foundation
import HeartQueries

struct Heartctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heartctl",
        abstract: "Query and control heartd.",
        discussion: """
        Talks to the daemon's control socket, reads a store file directly with --db, or every gateway's samples
        in the central PostgreSQL with --central (docs/CENTRAL.md).
        Exit status: 0 ok, 1 failed (or an invalid payload for decode), 2 usage error, 3 daemon unreachable,
        4 not found, 5 permission denied, 6 needs the daemon.
        """,
        version: HeartdVersion.string,
        subcommands: [Status.self, Devices.self, Watch.self, Allow.self, Forget.self, Nearby.self,
                      Series.self, Show.self, Beats.self, Stats.self, HRV.self, Changes.self, Export.self, Delete.self,
                      SessionCommand.self, Sessions.self, ReportCommand.self, PeopleCommand.self,
                      Decode.self])
}

@main
enum HeartctlMain {
    static func main() async {
        do {
            var command = try Heartctl.parseAsRoot(moveGlobalOptions(Array(CommandLine.arguments.dropFirst())))
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // ArgumentParser exits 64 (EX_USAGE) for usage errors; heartctl documents 2, like most CLIs.
            if Heartctl.exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((Heartctl.fullMessage(for: error) + "\n").utf8))
                Heartctl.exit(withError: ExitCode(CLIError.Code.usage.rawValue))
            }
            Heartctl.exit(withError: error)
        }
    }

    /// Lets the global options come before the subcommand (`heartctl --db x.sqlite series`) by moving them
    /// behind it, where ArgumentParser looks for them.
    /// The global options that take a value.
    static let globalOptions = ["--socket", "--db", "--central", "--gateway", "--central-tls", "--ca-file", "--password-file"]
    /// Command groups: their subcommand stays in front of the moved options (`heartctl --db x session show U`).
    static let groups: Set<String> = ["session", "people"]

    static func moveGlobalOptions(_ args: [String]) -> [String] {
        var leading: [String] = [], i = 0
        while i < args.count {
            let a = args[i]
            if Self.globalOptions.contains(a), i + 1 < args.count {
                leading += [a, args[i + 1]]
                i += 2
            } else if Self.globalOptions.contains(where: { a.hasPrefix($0 + "=") }) || a == "--json" {
                leading.append(a)
                i += 1
            } else {
                break
            }
        }
        guard !leading.isEmpty, i < args.count else { return args }
        // A command group (`session start`): behind its subcommand.
        let command = groups.contains(args[i]) && i + 1 < args.count ? 2 : 1
        return Array(args[i..<(i + command)]) + leading + args[(i + command)...]
    }
}
