import Testing
@testable import HeartdConfig
import SyncConfig

/// `[sync]`: parsed, validated (check-config refuses a password in the URL), rendered back.
@Suite struct ConfigurationSyncTests {
    @Test func parsesAndRendersTheSyncSection() throws {
        let c = try HeartdConfiguration.parse("""
            [sync]
            url = "postgres://heartd@db.example:6543/heart"
            tls = "require"
            password_file = "/etc/heartd/sync-password"
            gateway = "bike-07"
            interval = 2
            batch_size = 50
            batch_rows = 5000
            """)
        #expect(c.sync.url == "postgres://heartd@db.example:6543/heart")
        #expect(c.sync.tls == .require && c.sync.gateway == "bike-07" && c.sync.batchSize == 50 && c.sync.intervalSeconds == 2)
        #expect(c.sync.batchRows == 5000)
        #expect(try CentralURL(c.sync.url) == CentralURL("postgres://heartd@db.example:6543/heart"))
        #expect(try HeartdConfiguration.parse(c.render()) == c, "render round-trips")
        #expect(HeartdConfiguration().sync.url.isEmpty, "sync is off by default")
    }

    @Test func refusesAPasswordInTheURLAndBadValues() {
        func code(_ text: String) -> ConfigurationError.Code? {
            do { _ = try HeartdConfiguration.parse(text); return nil } catch { return error.code }
        }
        #expect(code("[sync]\nurl = \"postgres://heartd:secret@db/heart\"") == .outOfRange)
        #expect(code("[sync]\nurl = \"mysql://heartd@db/heart\"") == .outOfRange)
        #expect(code("[sync]\nurl = \"postgres://heartd@db\"") == .outOfRange)
        #expect(code("[sync]\ntls = \"prefer\"") == .outOfRange)
        #expect(code("[sync]\npassword_file = \"relative\"") == .outOfRange)
        #expect(code("[sync]\nbatch_size = 0") == .outOfRange)
        #expect(code("[sync]\nbatch_rows = 10") == .outOfRange)
        #expect(throws: SyncError.self) { try CentralURL("postgres://heartd:secret@db/heart") }
    }
}
