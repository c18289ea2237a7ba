import Foundation
import HeartQueries
import HeartStore
import TestBus
import Testing

/// heartctl prints each read's typed result with one function per result type, whether the result was decoded from
/// the daemon's socket or handed over by the store file (`--db`, no JSON in between): the two print the same bytes.
/// Against the real daemon (simulator, capturing at "now") serving a store with a day of data in the past, and the
/// real heartctl binary.
@Suite("heartctl: the socket and --db print alike")
struct HeartctlTypedPrintTests {
    @Test("stats, hrv, beats, devices, sessions and people print the same through the socket and from the file")
    func theSocketAndTheStoreFilePrintTheSameBytes() throws {
        let dir = try TestDirectory("print-alike")
        defer { dir.remove() }
        let db = dir.file("heart.db")
        // One hour of beats: a full HRV analysis in a debug build.
        try LongStore.write(db, days: 1, hoursPerDay: 1)
        try LongStore.annotate(db)
        let series = try HeartDatabase.openReadOnly(path: db)
        let uuid = try #require(try series.heartbeatSeries(from: LongStore.t0, to: LongStore.t0.addingTimeInterval(3600)).first).uuid
        try series.close()
        let daemon = try DaemonProcess(dir: dir, db: db, speed: 20)
        defer { daemon.stop() }
        let heartctl = try BuiltProducts.path("heartctl")
        let range = ["--from", ExportDates.iso(LongStore.t0), "--to", ExportDates.iso(LongStore.t0.addingTimeInterval(86_400))]
        let commands = [
            ["stats"] + range, ["stats", "--interval", "15m", "--by-device"] + range, ["hrv"] + range, ["hrv", uuid.uuidString],
            ["beats", uuid.uuidString], ["beats", uuid.uuidString, "--format", "json"], ["sessions"], ["people"], ["devices"],
        ]
        for command in commands {
            let socket = try runTool(heartctl, command + ["--socket", daemon.socket])
            let file = try runTool(heartctl, command + ["--db", db])
            #expect(socket.status == 0 && file.status == 0, "\(command): \(socket.err) \(file.err)")
            var printed = (socket.out, file.out)
            // The simulated sensor the daemon captures now is stored too, and seen again and again: the strap's row only.
            if command == ["devices"] {
                let strap = { (out: String) in out.split(separator: "\n").filter { $0.hasPrefix(LongStore.address) }.joined() }
                printed = (strap(socket.out), strap(file.out))
                #expect(!printed.0.isEmpty, "\(socket.out)")
            }
            #expect(printed.0 == printed.1, "\(command)")
            #expect(!printed.1.isEmpty && !printed.1.hasPrefix("no "), "\(command)")
        }
    }
}
