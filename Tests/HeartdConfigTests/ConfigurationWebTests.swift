import Testing
@testable import HeartdConfig
import WebConfig

/// `[web]`: parsed, validated, rendered back; loopback by default.
@Suite struct ConfigurationWebTests {
    @Test func parsesAndRendersTheWebSection() throws {
        let c = try HeartdConfiguration.parse("""
            [web]
            host = "0.0.0.0"
            port = 8443
            viewer_token_file = "/etc/heartd/web-viewer-token"
            hrmax = 185
            hrmax_devices = ["aa:bb:cc:dd:ee:ff=172"]
            client_buffer = 64
            """)
        #expect(c.web.host == "0.0.0.0" && !c.web.isLoopback && c.web.port == 8443)
        #expect(c.web.hrmaxDefault == 185 && c.web.hrmaxByDevice == ["AA:BB:CC:DD:EE:FF": 172] && c.web.clientBuffer == 64)
        #expect(try HeartdConfiguration.parse(c.render()) == c, "render round-trips")
        #expect(HeartdConfiguration().web.isLoopback, "loopback by default")
    }

    @Test func refusesBadValues() {
        func code(_ text: String) -> ConfigurationError.Code? {
            do { _ = try HeartdConfiguration.parse(text); return nil } catch { return error.code }
        }
        #expect(code("[web]\nport = 70000") == .outOfRange)
        #expect(code("[web]\nhost = \"a b\"") == .outOfRange)
        #expect(code("[web]\nviewer_token_file = \"relative\"") == .outOfRange)
        #expect(code("[web]\nhrmax = 20") == .outOfRange)
        #expect(code("[web]\nhrmax_devices = [\"AA:BB:CC:DD:EE:FF\"]") == .outOfRange)
        #expect(code("[web]\nhrmax_devices = [\"AA:BB:CC:DD:EE:FF=999\"]") == .outOfRange)
    }
}
