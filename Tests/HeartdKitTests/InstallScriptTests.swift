import Foundation
import Testing

/// scripts/install.sh and scripts/uninstall.sh staged into a DESTDIR by scripts/test-install.sh (binaries, unit,
/// journal catalog, drop-ins kept by uninstall and removed by --purge); the same on a booted systemd is
/// scripts/sdlab-test.sh.
@Suite("install scripts")
struct InstallScriptTests {
    @Test("install, uninstall and --purge stage and remove what they should")
    func stagedInstallAndPurge() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../scripts/test-install.sh").standardized.path
        let run = try runTool("/bin/bash", [script], timeout: 60)
        #expect(run.status == 0, "\(run.out)\(run.err)")
        #expect(run.out.contains(" passed, 0 failed"), "\(run.out)")
        #expect(!run.err.contains("FAIL"), "\(run.err)")
    }
}
