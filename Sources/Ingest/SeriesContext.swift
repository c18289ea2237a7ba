import Foundation
import HealthModel

/// What a series set needs to know to create builders.
struct SeriesContext: Sendable {
    var clock: ClockMap
    var device: DeviceInfo
    /// Metadata every sample of the device carries (serial number, body sensor location).
    var metadata: Metadata
    var settings: IngestSettings
    var makeUUID: @Sendable () -> UUID
}
