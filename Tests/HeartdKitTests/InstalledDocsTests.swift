import Foundation
import TestBus
import Testing

/// scripts/install.sh installs man pages (heartctl.1, heartd.8, heartd-sync.8) and bash/zsh/fish completions
/// generated from the real binaries' command trees, and scripts/uninstall.sh removes them again (staged into a
/// DESTDIR).
@Suite(.serialized) struct InstalledDocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func script(_ name: String, _ arguments: [String], environment: [String: String]) throws -> (status: Int32, out: String) {
        let r = try runTool("/bin/bash", [Self.root.appendingPathComponent("scripts/\(name)").path] + arguments,
                            environment: environment, timeout: 60)
        return (r.status, r.out + r.err)
    }

    @Test func manPagesAndCompletionsAreGeneratedInstalledAndRemoved() throws {
        let dir = try TestDirectory("install-docs")
        defer { dir.remove() }
        let stage = dir.file("stage")
        let build = URL(fileURLWithPath: try BuiltProducts.path("heartctl")).deletingLastPathComponent().path
        let env = ["DESTDIR": stage, "PREFIX": "/opt/hd", "BUILD_DIR": build]
        let install = try script("install.sh", [], environment: env)
        #expect(install.status == 0, "\(install.out)")
        let share = stage + "/opt/hd/share"
        let manual = try String(contentsOfFile: share + "/man/man1/heartctl.1", encoding: .utf8)
        #expect(manual.hasPrefix(".TH HEARTCTL 1"))
        for command in ["status", "watch", "export", "decode", "allow", "forget", "delete"] {
            #expect(manual.contains(".SS heartctl \(command)"), "heartctl.1 lacks \(command)")
        }
        #expect(manual.contains("2 usage error"))
        let daemonManual = try String(contentsOfFile: share + "/man/man8/heartd.8", encoding: .utf8)
        #expect(daemonManual.hasPrefix(".TH HEARTD 8") && daemonManual.contains("replay"))
        #expect(!daemonManual.contains(".SS heartd sync"), "the moved command is hidden")
        let syncManual = try String(contentsOfFile: share + "/man/man8/heartd-sync.8", encoding: .utf8)
        #expect(syncManual.hasPrefix(".TH HEARTD-SYNC 8") && syncManual.contains("\\-\\-once") && syncManual.contains("Exit status"),
                "\(syncManual)")
        let bash = try String(contentsOfFile: share + "/bash-completion/completions/heartctl", encoding: .utf8)
        #expect(bash.contains("complete") && bash.contains("watch"))
        #expect(try String(contentsOfFile: share + "/zsh/site-functions/_heartctl", encoding: .utf8).hasPrefix("#compdef heartctl"))
        #expect(try String(contentsOfFile: share + "/fish/vendor_completions.d/heartctl.fish", encoding: .utf8).contains("heartctl"))
        #expect(FileManager.default.fileExists(atPath: share + "/bash-completion/completions/heartd"))
        // man(1) renders the page without complaint, when man is there.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            let render = try runTool("/usr/bin/man", ["-l", "--warnings", share + "/man/man1/heartctl.1"])
            #expect(render.status == 0 && render.out.contains("heartctl"), "\(render.err)")
        }

        let uninstall = try script("uninstall.sh", [], environment: ["DESTDIR": stage, "PREFIX": "/opt/hd"])
        #expect(uninstall.status == 0, "\(uninstall.out)")
        for file in ["/man/man1/heartctl.1", "/man/man8/heartd.8", "/man/man8/heartd-sync.8",
                     "/bash-completion/completions/heartctl", "/bash-completion/completions/heartd-sync",
                     "/zsh/site-functions/_heartctl", "/fish/vendor_completions.d/heartd.fish"] {
            #expect(!FileManager.default.fileExists(atPath: share + file), "\(file) left behind")
        }
    }
}
