import Foundation
import Ingest
import Logging

/// Interim: the BlueZ client is being integrated; until then the daemon says so instead of pretending.
enum BlueZCapture {
    static func make(configuration: HeartdConfiguration, environment: [String: String], logger: Logger) async throws -> (any Source, any CaptureControl) {
        throw DaemonError(.capture, "BlueZ capture is not in this build yet; run with --simulate")
    }
}
