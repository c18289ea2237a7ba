import Control
import Foundation
import HealthModel
import HeartQueries
import Ingest
import Logging
import Synchronization
import Testing
@testable import LiveFeed

/// The feed against a real control socket: it follows status and events, and outlives heartd's restarts.
@Suite struct LiveFeedTests {
    let address = "A0:9E:1A:00:00:02"

    func eventually(_ seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    func settings(_ path: String) -> LiveFeedSettings {
        var s = LiveFeedSettings(socketPath: path)
        s.minBackoff = .milliseconds(50)
        s.maxBackoff = .milliseconds(200)
        return s
    }

    @Test func followsStatusThenEventsAndComesBackAfterARestart() async throws {
        let dir = NSTemporaryDirectory() + "feed-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let heartd = try FakeHeartd(path: dir + "/control.sock")
        heartd.devices.withLock {
            $0 = [DeviceStatus(address: address, connected: true, device: DeviceInfo(name: "<b>strap</b>"), lastNotification: Date(),
                               currentBPM: 64, batteryPercent: 90, beatsInOpenSeries: 0, seriesFinished: 0,
                               counters: IngestCounters())]
        }
        let feed = LiveFeed(settings: settings(heartd.path), logger: Logger(label: "feed") { _ in SwiftLogNoOpLogHandler() })
        let updates = feed.updates()
        let seen = Mutex<[LiveUpdate]>([])
        let reader = Task { for await u in updates { seen.withLock { $0.append(u) } } }
        let running = Task { try await feed.run() }
        defer {
            running.cancel()
            reader.cancel()
            heartd.stop()
        }

        #expect(await eventually { feed.snapshot().devices.first?.bpm == 64 && heartd.watcherCount == 1 })
        #expect(feed.snapshot().daemonReachable)
        #expect(feed.snapshot().devices.first?.batteryPercent == 90)

        heartd.send(.heartRate(.init(device: address, at: Date(), bpm: 71)))
        #expect(await eventually { feed.snapshot().devices.first?.bpm == 71 })

        heartd.stop()
        #expect(await eventually { !feed.snapshot().daemonReachable })
        #expect(feed.snapshot().devices.first?.state == .disconnected)
        #expect(await eventually { seen.withLock { $0.contains(where: { if case .daemon(false, _) = $0 { true } else { false } }) } })

        try heartd.start()
        #expect(await eventually { feed.snapshot().daemonReachable && heartd.watcherCount == 1 })
        #expect(feed.snapshot().devices.first?.state == .streaming)
    }

    /// A line heartd should never send (a heart rate that is a word, a beat time that is a number) is skipped and
    /// counted; the events after it still apply.
    @Test func anUnreadableEventIsCountedAndSkipped() async throws {
        let dir = NSTemporaryDirectory() + "feed-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let heartd = try FakeHeartd(path: dir + "/control.sock")
        let feed = LiveFeed(settings: settings(heartd.path), logger: Logger(label: "feed") { _ in SwiftLogNoOpLogHandler() })
        let running = Task { try await feed.run() }
        defer {
            running.cancel()
            heartd.stop()
        }
        #expect(await eventually { feed.snapshot().daemonReachable && heartd.watcherCount == 1 })
        heartd.send(ControlEvent(WatchEvent.heartRate.rawValue, fields: ["device": .string(address), "bpm": "fast"]))
        heartd.send(ControlEvent(WatchEvent.beats.rawValue, fields: ["device": .string(address), "beats": [["time": 1]]]))
        heartd.send(.heartRate(.init(device: address, at: Date(), bpm: 77)))
        #expect(await eventually { feed.snapshot().devices.first?.bpm == 77 })
        #expect(feed.unreadableEventCount == 2)
    }

    @Test func aSubscriberThatDoesNotReadLosesOnlyItsOldestUpdates() async throws {
        let dir = NSTemporaryDirectory() + "feed-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let heartd = try FakeHeartd(path: dir + "/control.sock")
        let feed = LiveFeed(settings: settings(heartd.path), logger: Logger(label: "feed") { _ in SwiftLogNoOpLogHandler() })
        let slow = feed.updates(buffer: 2)
        let running = Task { try await feed.run() }
        defer { heartd.stop() }
        #expect(await eventually { feed.snapshot().daemonReachable && heartd.watcherCount == 1 })
        for bpm in 60..<160 { heartd.send(.heartRate(.init(device: address, at: Date(), bpm: bpm))) }
        #expect(await eventually { feed.snapshot().devices.first?.bpm == 159 })
        running.cancel()
        var received: [LiveUpdate] = []
        for await u in slow { received.append(u) }
        #expect(received.count == 2)
        #expect(received.last.flatMap { if case .device(let d) = $0 { d.bpm } else { nil } } == 159)
    }

    @Test func carriesHeartdsLiveDFAAlpha1AndItsArtifactShare() async throws {
        let dir = NSTemporaryDirectory() + "feed-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let heartd = try FakeHeartd(path: dir + "/control.sock")
        let feed = LiveFeed(settings: settings(heartd.path), logger: Logger(label: "feed") { _ in SwiftLogNoOpLogHandler() })
        let running = Task { try await feed.run() }
        defer {
            running.cancel()
            heartd.stop()
        }
        #expect(await eventually { feed.snapshot().daemonReachable && heartd.watcherCount == 1 })
        heartd.send(.heartRate(.init(device: address, at: Date(), bpm: 150)))
        heartd.send(.dfaAlpha1(.init(device: address, at: Date(), alpha1: 0.74, state: .measured, intervals: 290,
                                     artifactPercent: 1.4, windowFull: true)))
        #expect(await eventually { feed.snapshot().devices.first?.dfaAlpha1 == 0.74 })
        #expect(feed.snapshot().devices.first?.dfaArtifactPercent == 1.4)
        // Withheld (too many artifacts): no α1, the share still shown.
        heartd.send(.dfaAlpha1(.init(device: address, at: Date(), alpha1: nil, state: .withheldArtifacts, intervals: 280,
                                     artifactPercent: 7.5, windowFull: true)))
        #expect(await eventually { feed.snapshot().devices.first?.dfaArtifactPercent == 7.5 })
        #expect(feed.snapshot().devices.first?.dfaAlpha1 == nil)
    }
}
