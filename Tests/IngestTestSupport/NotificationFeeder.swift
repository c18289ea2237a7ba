import Foundation
import Ingest
import SourceEvents
import Synchronization

/// Notifications fed to a pipeline on a thread of its own, as BlueZ's reader does, every 2 ms until `finish()`:
/// how long each `handleNow` took while `measure(true)` (a session stop, in `SessionStopCaptureTests` and
/// `heartbench session`).
public final class NotificationFeeder: Sendable {
    public struct State: Sendable {
        var running = true
        var measuring = false
        /// Notifications handled while measuring, and the longest `handleNow` among them.
        public var handled = 0
        public var longest: Duration = .zero
    }

    private let state = Mutex(State())
    private let done = DispatchSemaphore(value: 0)

    public init(pipeline: IngestPipeline, address: String) {
        Thread { [self] in
            let clock = ContinuousClock()
            var rr: UInt16 = 820
            while state.withLock({ $0.running }) {
                rr = rr == 820 ? 860 : 820
                // Heart Rate Measurement: 8-bit bpm, contact detected, one RR (1/1024 s, little-endian).
                let bytes: [UInt8] = [0x16, 72, UInt8(rr & 0xFF), UInt8(rr >> 8)]
                let t0 = clock.now
                pipeline.handleNow(.notification(address: address, bytes: bytes, at: .now()))
                let took = clock.now - t0
                state.withLock { s in
                    guard s.measuring else { return }
                    s.handled += 1
                    s.longest = max(s.longest, took)
                }
                usleep(2_000)
            }
            done.signal()
        }.start()
    }

    public func measure(_ on: Bool) { state.withLock { $0.measuring = on } }

    /// Stops the thread (after its current notification) and returns what it measured.
    public func finish() -> State {
        state.withLock { $0.running = false }
        done.wait()
        return state.withLock { $0 }
    }
}
