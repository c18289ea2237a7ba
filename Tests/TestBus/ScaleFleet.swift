/// `heartbench scale --gateways N`: a fleet made fast for the benchmark (shared with SyncTests, which check that a
/// copy reads as its original). One gateway (`gw0`) is delivered by heartd-sync's runner as a real gateway would;
/// then the other N − 1 are copies of its rows made by the server in one pass per table (`steps(gateways:)`): a
/// `gateways` row each, their own devices (the address suffixed `/gwK`), every sample under a new UUID
/// (`md5(uuid ‖ ':gwK')`) and every expanded and roll-up row (`beats`, `heart_rate`, `heart_rate_hourly`,
/// `hrv_hourly`) pointing at them (the roll-ups' `gateway` at the copy's own). The copies are the same beats at the same times — what a fleet's reads cost
/// depends on the rows and months they span, not on their values — and skip heartd-sync's client side (the
/// benchmark times delivery once, for `gw0`).
///
/// What made it fast (measured with EXPLAIN ANALYZE on a copy of 7.8 M heart-rate rows, docs/BENCHMARKS.md): each
/// row's new device and sample UUID are looked up in a map made once per sample and gateway (`fleet_map`, a hash join),
/// not computed by `md5` per row (~3 µs a row, more than the insert); the maps are analyzed, so the planner hashes
/// them instead of sorting the source rows to disk for a merge join; one scan of gw0's rows feeds every copy; and
/// the expanded tables' BRIN indexes (half an insert's cost) are dropped for the copy and created again after from
/// their own definitions (`pg_get_indexdef`), the schema unchanged.
public enum ScaleFleet {
    /// One statement group, run as one psql call (its own transaction) and timed by the benchmark.
    public struct Step: Sendable {
        public let name: String
        public let sql: String
    }

    /// The steps that add gateways `gw1` … `gw(gateways − 1)` as copies of `gw0`. Work tables `fleet_*` live
    /// between the steps (unlogged) and are dropped by the last.
    public static func steps(gateways: Int) -> [Step] {
        guard gateways > 1 else { return [] }
        let names = "(SELECT 'gw' || k FROM generate_series(1, \(gateways - 1)) k)"
        return [
            Step(name: "maps", sql: """
                INSERT INTO gateways (name, machine_id, heartd_version, delivered_anchor)
                    SELECT n, machine_id, heartd_version, delivered_anchor FROM gateways, \(names) AS c(n) WHERE name = 'gw0';
                CREATE UNLOGGED TABLE fleet_gateways AS SELECT id, name FROM gateways WHERE name IN \(names);
                INSERT INTO devices (address, serial, name, manufacturer, model, hardware_version, firmware_version,
                                     software_version, metadata, last_gateway, first_seen, last_seen)
                    SELECT d.address || '/' || n.name, d.serial, d.name, d.manufacturer, d.model, d.hardware_version,
                           d.firmware_version, d.software_version, d.metadata, n.id, d.first_seen, d.last_seen
                    FROM devices d JOIN gateways g ON g.id = d.last_gateway CROSS JOIN fleet_gateways n WHERE g.name = 'gw0';
                CREATE UNLOGGED TABLE fleet_devices AS
                    SELECT o.id AS old, n.id AS new, f.id AS gateway FROM devices o JOIN gateways g ON g.id = o.last_gateway
                    CROSS JOIN fleet_gateways f JOIN devices n ON n.address = o.address || '/' || f.name AND n.serial = o.serial
                    WHERE g.name = 'gw0';
                CREATE UNLOGGED TABLE fleet_samples AS
                    SELECT s.uuid AS old, f.id AS gateway, f.name, md5(s.uuid::text || ':' || f.name)::uuid AS new
                    FROM samples s JOIN gateways g ON g.id = s.gateway CROSS JOIN fleet_gateways f WHERE g.name = 'gw0';
                CREATE UNLOGGED TABLE fleet_map AS
                    SELECT s.device, f.old AS sample, d.new AS new_device, f.new AS new_sample, f.gateway AS new_gateway
                    FROM fleet_samples f JOIN samples s ON s.uuid = f.old JOIN fleet_devices d ON d.old = s.device AND d.gateway = f.gateway;
                ANALYZE fleet_gateways, fleet_devices, fleet_samples, fleet_map;
                """),
            Step(name: "samples", sql: """
                INSERT INTO samples (uuid, gateway, device, type, start_time, end_time, count, average, minimum, maximum,
                                     most_recent, sum, metadata, device_info, sync_identifier, sync_version, anchor, contents)
                    SELECT f.new, f.gateway, d.new, s.type, s.start_time, s.end_time, s.count, s.average, s.minimum,
                           s.maximum, s.most_recent, s.sum, s.metadata, s.device_info, s.sync_identifier || ':' || f.name,
                           s.sync_version, s.anchor, s.contents
                    FROM samples s JOIN fleet_samples f ON f.old = s.uuid
                    LEFT JOIN fleet_devices d ON d.old = s.device AND d.gateway = f.gateway;
                """),
            Step(name: "indexes dropped", sql: """
                CREATE UNLOGGED TABLE fleet_indexes AS
                    SELECT c.relname AS name, replace(pg_get_indexdef(c.oid), ' ON ONLY ', ' ON ') AS definition FROM pg_index i
                    JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid IN ('beats'::regclass, 'heart_rate'::regclass);
                DO $$ DECLARE x record; BEGIN
                    FOR x IN SELECT name FROM fleet_indexes LOOP EXECUTE format('DROP INDEX %I', x.name); END LOOP;
                END $$;
                """),
            Step(name: "heart_rate", sql: expanded("heart_rate", "time, device, bpm, sample, end_time",
                                                   "r.time, m.new_device, r.bpm, m.new_sample, r.end_time")),
            Step(name: "beats", sql: expanded("beats", "time, device, rr_ms, preceded_by_gap, sample",
                                              "r.time, m.new_device, r.rr_ms, r.preceded_by_gap, m.new_sample")),
            Step(name: "roll-ups", sql: expanded("heart_rate_hourly", "cell, device, sample, gateway, n, lo, hi, s, sw, w, mt, m, rest",
                                                 "r.cell, m.new_device, m.new_sample, m.new_gateway, r.n, r.lo, r.hi, r.s, r.sw, r.w, r.mt, r.m, r.rest")
                + expanded("hrv_hourly", "cell, device, sample, gateway, n, k, s, ss, hr, dn, dd, o50, o20",
                           "r.cell, m.new_device, m.new_sample, m.new_gateway, r.n, r.k, r.s, r.ss, r.hr, r.dn, r.dd, r.o50, r.o20")),
            Step(name: "indexes created", sql: """
                DO $$ DECLARE x record; BEGIN
                    FOR x IN SELECT definition FROM fleet_indexes LOOP EXECUTE x.definition; END LOOP;
                END $$;
                DROP TABLE fleet_indexes, fleet_map, fleet_samples, fleet_devices, fleet_gateways;
                """),
        ]
    }

    /// Every copy of `table`'s gw0 rows in one statement: each source row meets its copies in `fleet_map` (one row per
    /// gw0 sample and gateway: the new device and sample) by a hash join on (device, sample). Merge joins are off: with
    /// 19 gateways the planner, estimating the join at 9.5 M rows instead of 148 M, sorted every copy by sample and
    /// wrote 8.6 GB of temporary files (the heart-rate copy ran over 12 minutes and was stopped).
    static func expanded(_ table: String, _ columns: String, _ values: String) -> String {
        """
        SET work_mem = '256MB';
        SET jit = off;
        SET enable_mergejoin = off;
        INSERT INTO \(table) (\(columns))
            SELECT \(values) FROM \(table) r JOIN fleet_map m ON m.device = r.device AND m.sample = r.sample;

        """
    }
}
