import Foundation
import HealthModel
import LiveFeed
import Testing
import TestBus
import Web

/// Time in zone, effort points (Myzone's 1–4 a minute) and calories (Keytel et al. 2005) from a heart-rate feed.
struct EffortTallyTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func feed(_ tally: inout EffortTally, bpm: Int, seconds: Int, from offset: Int = 0) {
        for second in 0...seconds { tally.add(bpm: bpm, at: start.addingTimeInterval(Double(offset + second))) }
    }

    @Test func aMinuteInEachZoneEarnsItsPoints() {
        // HRmax 200: 110 bpm is 55 % (grey), 130 blue, 150 green, 170 yellow, 190 red; 90 bpm (45 %) is rest.
        let cases: [(bpm: Int, zone: HeartZone, points: Double)] = [(90, .rest, 0), (110, .grey, 1), (130, .blue, 2), (150, .green, 3),
                                                                    (170, .yellow, 4), (190, .red, 4)]
        for (bpm, zone, points) in cases {
            var tally = EffortTally(person: .init(hrmax: 200))
            feed(&tally, bpm: bpm, seconds: 60)
            #expect(tally.secondsInZone == [zone: 60], "\(bpm) bpm")
            #expect(abs(tally.points - points) < 1e-9, "\(bpm) bpm: \(tally.points) points")
            #expect(tally.kilocalories == nil)
        }
    }

    @Test func eachHeartRateCountsUntilTheNextOne() {
        var tally = EffortTally(person: .init(hrmax: 200))
        feed(&tally, bpm: 150, seconds: 30)           // 30 s green
        feed(&tally, bpm: 170, seconds: 30, from: 31) // the last green value counts 1 s more, then 30 s yellow
        #expect(tally.secondsInZone[.green] == 31)
        #expect(tally.secondsInZone[.yellow] == 30)
        #expect(abs(tally.points - (31.0 * 3 + 30 * 4) / 60) < 1e-9)
    }

    @Test func aSilenceCountsOnlyUpToTheGapBound() {
        var tally = EffortTally(person: .init(hrmax: 200), maxGapSeconds: 5)
        tally.add(bpm: 150, at: start)
        tally.add(bpm: 150, at: start.addingTimeInterval(120))
        #expect(tally.secondsInZone[.green] == 5)
        tally.pause(at: start.addingTimeInterval(122))
        tally.add(bpm: 190, at: start.addingTimeInterval(300))  // starts afresh: nothing for the pause
        #expect(tally.secondsInZone == [.green: 7])
        tally.add(bpm: 190, at: start.addingTimeInterval(299))  // a clock step back counts nothing
        #expect(tally.secondsInZone == [.green: 7])
    }

    @Test func caloriesFollowKeytel2005() throws {
        // A 30-year-old man of 80 kg at 150 bpm: (−55.0969 + 0.6309·150 + 0.1988·80 + 0.2017·30) / 4.184 kcal/min.
        let man = EffortTally.Person(hrmax: 190, ageYears: 30, weightKg: 80, sex: .male)
        let perMinute = try #require(EffortTally.kilocaloriesPerMinute(bpm: 150, person: man))
        #expect(abs(perMinute - 14.6972) < 1e-3)
        // A 30-year-old woman of 60 kg at 150 bpm: (−20.4022 + 0.4472·150 − 0.1263·60 + 0.074·30) / 4.184.
        let woman = EffortTally.Person(hrmax: 190, ageYears: 30, weightKg: 60, sex: .female)
        #expect(abs(try #require(EffortTally.kilocaloriesPerMinute(bpm: 150, person: woman)) - 9.8757) < 1e-3)
        // Sex unknown: the mean of both equations.
        let someone = EffortTally.Person(hrmax: 190, ageYears: 30, weightKg: 80)
        let male = try #require(EffortTally.kilocaloriesPerMinute(bpm: 150, person: man))
        let female = try #require(EffortTally.kilocaloriesPerMinute(bpm: 150, person: .init(hrmax: 190, ageYears: 30, weightKg: 80, sex: .female)))
        #expect(abs(try #require(EffortTally.kilocaloriesPerMinute(bpm: 150, person: someone)) - (male + female) / 2) < 1e-9)
        // Never negative; nothing without weight or age.
        #expect(EffortTally.kilocaloriesPerMinute(bpm: 40, person: .init(hrmax: 190, ageYears: 20, weightKg: 50, sex: .male)) == 0)
        #expect(EffortTally.kilocaloriesPerMinute(bpm: 150, person: .init(hrmax: 190, ageYears: 30)) == nil)

        var tally = EffortTally(person: man)
        feed(&tally, bpm: 150, seconds: 120)
        #expect(abs(try #require(tally.kilocalories) - 2 * perMinute) < 1e-6)
        var resting = EffortTally(person: man)
        feed(&resting, bpm: 80, seconds: 120)  // 42 % HRmax: rest, no calories counted
        #expect(resting.kilocalories == 0)
    }

    /// The person assigned to the strap gives HRmax, age and weight; `web.*` fills only what they leave unset.
    @Test func thePersonOnTheStrapComesFirst() {
        let defaults = EffortPeople(ageYears: 30, weightKg: 70, sex: .female)
        let table = HRMaxTable(defaultBPM: 200)
        let alice = Person(name: "Alice", heartRateMaximum: 180, age: 52, weightKg: nil)
        let worn = defaults.person(for: LiveDevice(address: "AA:00:00:00:00:01", person: alice), hrmax: table)
        #expect(worn == EffortTally.Person(hrmax: 180, ageYears: 52, weightKg: 70, sex: .female))
        let nobody = defaults.person(for: LiveDevice(address: "AA:00:00:00:00:01"), hrmax: table)
        #expect(nobody == EffortTally.Person(hrmax: 200, ageYears: 30, weightKg: 70, sex: .female))
        #expect(EffortPeople().person(for: LiveDevice(address: "AA:00:00:00:00:01"), hrmax: table).ageYears == nil)
    }

    /// A strap assigned mid-session keeps what it counted; calories start once an age and a weight are known.
    @Test func aPersonAssignedMidSessionKeepsTheEffortSoFar() {
        var tally = EffortTally(person: .init(hrmax: 200))
        feed(&tally, bpm: 150, seconds: 60)  // green at HRmax 200: 3 points
        #expect(tally.kilocalories == nil)
        tally.wornBy(.init(hrmax: 170, ageYears: 40, weightKg: 80, sex: .male))
        feed(&tally, bpm: 150, seconds: 60, from: 61)  // 88 % of 170: yellow from the change on, 61 s at 4 points a minute
        #expect(abs(tally.points - (3 + 61.0 / 60 * 4)) < 1e-9, "\(tally.points)")
        #expect((tally.kilocalories ?? 0) > 5)
    }
}

/// heartd-web's fan-out keeps a tally per sensor, sends it with each device, and starts again when a session starts.
struct EffortFanoutTests {
    @Test func eachTileCarriesItsSessionsEffort() async throws {
        let fixture = WebFixture()
        let running = Task { try await fixture.fanout.run() }
        defer { running.cancel() }
        #expect(await eventually { fixture.source.subscribers == 1 })
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        func beat(_ seconds: Double) {
            var device = WebFixture.device("AA:00:00:00:00:01", bpm: 150)  // HRmax 200: 75 %, green, 3 points a minute
            device.lastNotification = start.addingTimeInterval(seconds)
            fixture.source.send(.device(device))
        }
        for second in 0...60 { beat(Double(second)) }  // a notification a second: silences are not counted
        #expect(await eventually { fixture.fanout.snapshotMessage().json().contains(#""effort":{"points":3,"zoneSeconds":{"green":60}}"#) },
                "\(fixture.fanout.snapshotMessage().json())")
        fixture.source.send(.sessions([ActiveSessionStatusFixture.make(label: "round 2")]))
        beat(61)
        #expect(await eventually { fixture.fanout.snapshotMessage().json().contains(#""effort":{"points":0,"zoneSeconds":{}}"#) },
                "\(fixture.fanout.snapshotMessage().json())")
    }
}
