import ArgumentParser
import Foundation

/// `heartd sync` moved to its own program, `heartd-sync` (same options, state file and exit statuses), so that the
/// capture daemon links no network stack (docs/ARCHITECTURE.md). An old cron line or unit that still says
/// `heartd sync` gets a message naming the new command and exit status 2, which no other heartd path uses, rather
/// than a usage error; hidden from --help and the man page.
struct SyncMoved: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Moved: run heartd-sync (same options).", shouldDisplay: false)

    /// Whatever the old command line passed (`--once`, `--config …`), echoed in the suggestion.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var arguments: [String] = []

    static let exitStatus: Int32 = 2

    func run() throws {
        let suggestion = (["heartd-sync"] + arguments).joined(separator: " ")
        FileHandle.standardError.write(Data("""
            heartd: heartd sync moved to heartd-sync: run `\(suggestion)` (same options and exit statuses; \
            systemd/heartd-sync.service runs it)\n
            """.utf8))
        throw ExitCode(Self.exitStatus)
    }
}
