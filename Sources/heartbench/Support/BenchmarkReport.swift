import Foundation

/// Prints a subcommand's results (machine info, then the table) and optionally writes them to a file.
enum BenchmarkReport {
    /// The report as markdown.
    static func render(title: String, table: ResultTable, machine: MachineInfo, sqliteVersion: String,
                       command: String) -> String {
        """
        ## \(title)

        \(machine.markdown(sqliteVersion: sqliteVersion, command: command))

        \(table.markdown())

        """
    }

    /// Prints `report`; writes it to `path` too when given.
    static func emit(_ report: String, to path: String?) throws {
        print(report)
        if let path {
            try report.write(toFile: path, atomically: true, encoding: .utf8)
            print("report written to \(path)")
        }
    }

    /// The command line as typed, for the report.
    static var commandLine: String {
        CommandLine.arguments.enumerated().map { index, argument in
            index == 0 ? (argument as NSString).lastPathComponent : argument
        }.joined(separator: " ")
    }
}
