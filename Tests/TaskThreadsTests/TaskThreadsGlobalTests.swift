import Foundation
import TestBus
import Testing
import TaskThreads

/// The pool as Swift concurrency's global executor, through experimental SPI of Swift 6.3: `TaskThreadsCheck`
/// installs it in a fresh process and checks that tasks, sleeps, child tasks, actor hops and the main actor go
/// where they should. A toolchain that changes the SPI's behaviour fails here.
@Suite struct TaskThreadsGlobalTests {
    /// Runs the check program with `environment` added; its exit status and output.
    static func check(_ environment: [String: String] = [:]) throws -> (status: Int32, text: String) {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: try BuiltProducts.path("TaskThreadsCheck"))
        check.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe()
        check.standardOutput = output
        check.standardError = output
        try check.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        return (check.terminationStatus, text)
    }

    @Test(.enabled(if: TaskThreads.isCompiledIn, "built without the trait CustomGlobalExecutor"))
    func everythingAsynchronousReachesTheInstalledPool() throws {
        let (status, text) = try Self.check(["HEARTD_EXECUTOR": ""])
        #expect(status == 0, "\(text)")
        #expect(text.hasPrefix("executor: pool"), "\(text)")
        #expect(!text.contains("FAIL"), "\(text)")
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 13, "\(text)")
    }

    /// The run-time switch, and what a build without the SPI does: the platform's executor, and nothing installed.
    @Test func theSwitchKeepsThePlatformsExecutor() throws {
        let (status, text) = try Self.check(["HEARTD_EXECUTOR": "platform"])
        #expect(status == 0, "\(text)")
        #expect(text.hasPrefix("executor: platform"), "\(text)")
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 5, "\(text)")
    }

    @Test func anUnknownChoiceIsRefused() throws {
        let (status, text) = try Self.check(["HEARTD_EXECUTOR": "fast"])
        #expect(status == 2, "\(text)")
        #expect(throws: ExecutorChoice.InvalidValue.self) { try ExecutorChoice(environment: ["HEARTD_EXECUTOR": "fast"]) }
        #expect(try ExecutorChoice(environment: [:]) == .taskThreads)
    }
}
