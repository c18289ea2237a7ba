import Foundation
import HealthModel
import PostgresNIO

/// People in a batch's transaction: one upsert per person (a batch holds few; a later save replaces an earlier
/// one, never the other way round: the higher anchor wins), and removals by tombstone.
extension CentralBatchWriter {
    func writePeople(_ batch: CentralBatch, report: inout DeliveryReport) async throws {
        for person in batch.people {
            try await query("""
                INSERT INTO people (uuid, gateway, name, heart_rate_maximum, age, weight_kg, resting_heart_rate, strap, anchor)
                VALUES (\(person.uuid), \(gateway), \(person.name), \(person.heartRateMaximum.map { Int32($0) }),
                        \(person.age.map { Int32($0) }), \(person.weightKg), \(person.restingHeartRate.map { Int32($0) }),
                        \(person.strap), \(person.anchor ?? 0))
                ON CONFLICT (uuid) DO UPDATE SET name = EXCLUDED.name, heart_rate_maximum = EXCLUDED.heart_rate_maximum,
                    age = EXCLUDED.age, weight_kg = EXCLUDED.weight_kg, resting_heart_rate = EXCLUDED.resting_heart_rate,
                    strap = EXCLUDED.strap, anchor = EXCLUDED.anchor, delivered_at = now()
                WHERE people.gateway = EXCLUDED.gateway AND people.anchor < EXCLUDED.anchor
                """)
            report.people += 1
        }
    }

    /// Deletes central people (a tombstone's UUID may be a sample's or a session's: then nothing matches here).
    func removePeople(_ uuids: [UUID]) async throws -> Int {
        var count = 0
        for try await _ in try await query("DELETE FROM people WHERE uuid = ANY(\(uuids)) RETURNING uuid").decode(UUID.self) {
            count += 1
        }
        return count
    }
}
