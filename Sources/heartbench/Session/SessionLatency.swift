import Foundation
import Glibc
import HeartQueries

/// Session start → first tagged beat against the real `heartd --simulate` at real-time speed (one notification a
/// second): `session.start` is sent, then `series` with the session and `include_open` is polled every 2 ms until
/// an open series tagged with the session holds a beat. Baseline, in the same trial: the first `beats` event a
/// `watch` connection receives after the same moment, i.e. when the next beat reached the daemon at all, tagged
/// or not. Their difference is what tagging costs; the rest is waiting for the sensor's next notification.
extension SessionBenchmark {
    func latency(into table: inout ResultTable) throws {
        let sibling = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("heartd").path
        let binary = heartd ?? sibling
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            table.note("Latency not measured: no heartd at \(binary) (build it, or pass --heartd PATH).")
            return
        }
        progress("session latency: \(trials) session starts against heartd --simulate (real time) …")
        let daemon = try BenchDaemon(heartd: binary, speed: 1)
        defer { daemon.stop() }
        let control = try BenchConnection(path: daemon.socket)
        usleep(2_500_000) // connected and beating
        var tagged: [Double] = [], anyBeat: [Double] = []
        for trial in 0..<trials {
            usleep(useconds_t(200_000 + 137_000 * (trial % 7))) // start at different phases of the notification second
            // A new watch per trial: its first `beats` event is the first beat after the subscription.
            let watch = try BenchConnection(path: daemon.socket)
            _ = try watch.roundTrip(WatchCall.request(id: 1, WatchCall.Params()))
            let clock = ContinuousClock(), t0 = clock.now
            let started = try json(control.roundTrip(SessionStartCall.request(id: 2, SessionStartCall.Params(label: "bench"))))
            guard let uuid = (started["result"] as? [String: Any])?["uuid"] as? String else {
                throw BenchmarkError("session.start failed: \(started)")
            }
            var firstTagged: Double?, firstBeat: Double?
            let deadline = clock.now + .seconds(10)
            while firstTagged == nil || firstBeat == nil, clock.now < deadline {
                if firstBeat == nil, readable(watch, ms: 2), isBeatsEvent(try watch.readLine()) {
                    firstBeat = (clock.now - t0).seconds
                }
                if firstTagged == nil {
                    let listed = try json(control.roundTrip(SeriesCall.request(id: 3, SeriesCall.Params(
                        type: "heartbeat", to: "2100-01-01", session: uuid, includeOpen: true))))
                    let samples = ((listed["result"] as? [String: Any])?["samples"] as? [[String: Any]]) ?? []
                    if samples.contains(where: { ($0["count"] as? Int ?? 0) > 0 }) { firstTagged = (clock.now - t0).seconds }
                }
            }
            _ = try control.roundTrip(SessionStopCall.request(id: 4, SessionStopCall.Params(uuid: uuid)))
            guard let firstTagged, let firstBeat else { throw BenchmarkError("trial \(trial): no beat within 10 s") }
            tagged.append(firstTagged)
            anyBeat.append(firstBeat)
        }
        let median = { (v: [Double]) in v.sorted()[v.count / 2] }
        table.add("Session start → first tagged beat (median / max of \(trials), simulator at real time)",
                  heartd: "\(Fmt.ms(median(tagged))) / \(Fmt.ms(tagged.max() ?? 0))",
                  baseline: "\(Fmt.ms(median(anyBeat))) / \(Fmt.ms(anyBeat.max() ?? 0)) (next beat on `watch`, tagged or not)",
                  target: "tagging adds < 10 ms (the rest is the sensor's next beat)",
                  verdict: Verdict(zip(tagged, anyBeat).allSatisfy { $0 - $1 < 0.01 }))
        table.note("Latency trials (tagged / next beat, ms): " + zip(tagged, anyBeat)
            .map { "\(Fmt.fixed($0 * 1000, 0))/\(Fmt.fixed($1 * 1000, 0))" }.joined(separator: ", ")
            + ". The poll adds up to ~2 ms plus a `series` round trip.")
    }

    private func json(_ line: ArraySlice<UInt8>) throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] ?? [:]
    }

    private func isBeatsEvent(_ line: ArraySlice<UInt8>) -> Bool {
        String(decoding: line, as: UTF8.self).contains(#""event":"\#(WatchEvent.beats.rawValue)""#)
    }

    private func readable(_ c: BenchConnection, ms: Int32) -> Bool {
        if c.hasBufferedLine { return true }
        var p = pollfd(fd: c.fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, ms) > 0
    }
}
