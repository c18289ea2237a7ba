import Foundation

/// The gateway of each roll-up row (`heart_rate_hourly`, `hrv_hourly`), so one gateway's statistics read only its own
/// rows: with `--gateway` the roll-ups were filtered by `sample IN (the gateway's samples)`, which read every gateway's
/// rows of the range's months and matched each against a hash of the gateway's samples — a read that grew with the
/// fleet (one gateway of twenty over 90 days: 0.18 s warm, 1.0 s cold, where the whole fleet took 0.26 s). Now an index
/// on (`gateway`, `cell`) gives a gateway's rows of a range directly: 0.086 s (docs/CENTRAL.md, "`heartctl --central`";
/// docs/BENCHMARKS.md, "A fleet centrally").
///
/// `heartd-sync` writes the column with the rows (`CentralBatchWriter.expandedInsert`: the batch's own gateway, the
/// one its samples get). A row's gateway is its sample's, which never changes (samples are written once and deleted
/// whole), so the column never goes stale.
enum CentralRollupGateway {
    /// Version 7 of the central schema: the column on both roll-ups, filled from their samples, NOT NULL, and indexed
    /// with the cell (created on the partitioned parent, so every monthly partition, present and future, gets its own).
    ///
    /// A roll-up row whose sample is gone (none written by heartd-sync, which deletes a sample's roll-up rows in the
    /// transaction that deletes the sample; only rows inserted by hand without a sample) has no gateway: it is deleted,
    /// as no read scoped to a gateway, device or metadata ever counted it. Partitions detached before the migration
    /// keep their old columns: to attach one again, add the column and fill it as below first.
    static let migration = tables.flatMap { table in
        [
            "ALTER TABLE \(table) ADD COLUMN gateway int",
            "UPDATE \(table) r SET gateway = s.gateway FROM samples s WHERE s.uuid = r.sample",
            "DELETE FROM \(table) WHERE gateway IS NULL",
            "ALTER TABLE \(table) ALTER COLUMN gateway SET NOT NULL",
            "CREATE INDEX \(table)_gateway_cell ON \(table) (gateway, cell)",
        ]
    }

    /// The roll-up tables that carry the column.
    static let tables = ["heart_rate_hourly", "hrv_hourly"]

    /// The condition on roll-up rows `alias` for `--gateway name` (`name` a bind, e.g. `$3`): the gateway's id as an
    /// init plan, a constant to the planner, so it reads the (`gateway`, `cell`) index.
    static func condition(_ alias: String, gateway name: String) -> String {
        "\(alias).gateway = (SELECT gw.id FROM gateways gw WHERE gw.name = \(name))"
    }
}
