import Foundation
import TestBus
import Testing

/// The pool as Swift concurrency's global executor, through experimental SPI of Swift 6.3: `TaskThreadsCheck`
/// installs it in a fresh process and checks that tasks, sleeps, child tasks, actor hops and the main actor go
/// where they should. A toolchain that changes the SPI's behaviour fails here.
@Suite struct TaskThreadsGlobalTests {
    @Test func everythingAsynchronousReachesTheInstalledPool() throws {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: try BuiltProducts.path("TaskThreadsCheck"))
        let output = Pipe()
        check.standardOutput = output
        check.standardError = output
        try check.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "\(text)")
        #expect(!text.contains("FAIL"), "\(text)")
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 13, "\(text)")
    }
}
