import Foundation
import TestBus

/// Browser/room_check.py: Selenium driving headless Chromium against a heartd-web at `url`.
enum BrowserScript {
    static let token = "browser-viewer-token-0123456789"
    static let password = "coach password 42"

    /// Runs the named checks; their JSON results, or a failure with the results and `context()` (the services' logs).
    static func run(url: String, _ checks: [String], extra: [String] = [], context: () -> String = { "" }) async throws -> String {
        guard let script = Bundle.module.path(forResource: "room_check", ofType: "py", inDirectory: "Browser") else {
            throw WebTestFailure("Browser/room_check.py is not in the test bundle")
        }
        _ = try requiredProgram("/usr/bin/chromium", package: "chromium")
        _ = try requiredProgram("/usr/bin/chromedriver", package: "chromium-driver")
        let out = "/tmp/hw-browser-\(UUID().uuidString.prefix(8)).json"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let browser = try WebProcess("/usr/bin/env", ["python3", script, "--url", url, "--token", token, "--password", password]
                                     + extra + checks, log: out)
        guard await browser.waitForExit(timeout: 240) else {
            browser.stop()
            throw WebTestFailure("the browser script hung:\n\(browser.output)")
        }
        let text = browser.output
        if text.contains("No module named 'selenium'") {
            throw WebTestFailure("python3 has no selenium: pip install selenium (scripts/setup.sh does)")
        }
        guard browser.process.terminationStatus == 0 else {
            throw WebTestFailure("browser checks failed:\n\(text)\n\(context())")
        }
        return text
    }
}
