/// `heartbench scale --gateways N`: a fleet made fast for the benchmark. One gateway (`gw0`) is delivered by
/// heartd-sync's runner as a real gateway would; then each of the other N − 1 is a copy of its rows made in SQL by
/// the server (`copy(gateway:)`): a `gateways` row, its own devices (the address suffixed `/gwK`), every sample under a
/// new UUID (`md5(uuid ‖ ':gwK')`) and every expanded and roll-up row (`beats`, `heart_rate`, `heart_rate_hourly`,
/// `hrv_hourly`) pointing at them. The copies are the same beats at the same times — what a fleet's reads cost
/// depends on the rows and months they span, not on their values — and skip heartd-sync's client side (the
/// benchmark times delivery once, for `gw0`).
enum ScaleFleet {
    /// The statements that add gateway `k` (≥ 1) as a copy of `gw0`, in one transaction.
    static func copy(gateway k: Int) -> String {
        let name = "gw\(k)"
        return """
            BEGIN;
            INSERT INTO gateways (name, machine_id, heartd_version, delivered_anchor)
                SELECT '\(name)', machine_id, heartd_version, delivered_anchor FROM gateways WHERE name = 'gw0';
            INSERT INTO devices (address, serial, name, manufacturer, model, hardware_version, firmware_version,
                                 software_version, metadata, last_gateway, first_seen, last_seen)
                SELECT d.address || '/\(name)', d.serial, d.name, d.manufacturer, d.model, d.hardware_version,
                       d.firmware_version, d.software_version, d.metadata, (SELECT id FROM gateways WHERE name = '\(name)'),
                       d.first_seen, d.last_seen
                FROM devices d JOIN gateways g ON g.id = d.last_gateway WHERE g.name = 'gw0';
            CREATE TEMP TABLE fleet_map ON COMMIT DROP AS
                SELECT o.id AS old, n.id AS new FROM devices o JOIN gateways g ON g.id = o.last_gateway
                JOIN devices n ON n.address = o.address || '/\(name)' AND n.serial = o.serial WHERE g.name = 'gw0';
            INSERT INTO samples (uuid, gateway, device, type, start_time, end_time, count, average, minimum, maximum,
                                 most_recent, sum, metadata, device_info, sync_identifier, sync_version, anchor, contents)
                SELECT md5(s.uuid::text || ':\(name)')::uuid, (SELECT id FROM gateways WHERE name = '\(name)'), m.new,
                       s.type, s.start_time, s.end_time, s.count, s.average, s.minimum, s.maximum, s.most_recent, s.sum,
                       s.metadata, s.device_info, s.sync_identifier || ':\(name)', s.sync_version, s.anchor, s.contents
                FROM samples s JOIN gateways g ON g.id = s.gateway LEFT JOIN fleet_map m ON m.old = s.device
                WHERE g.name = 'gw0';
            INSERT INTO heart_rate (time, device, bpm, sample, end_time)
                SELECT r.time, m.new, r.bpm, md5(r.sample::text || ':\(name)')::uuid, r.end_time
                FROM heart_rate r JOIN fleet_map m ON m.old = r.device;
            INSERT INTO beats (time, device, rr_ms, preceded_by_gap, sample)
                SELECT r.time, m.new, r.rr_ms, r.preceded_by_gap, md5(r.sample::text || ':\(name)')::uuid
                FROM beats r JOIN fleet_map m ON m.old = r.device;
            INSERT INTO heart_rate_hourly (cell, device, sample, n, lo, hi, s, sw, w, mt, m, rest)
                SELECT r.cell, m.new, md5(r.sample::text || ':\(name)')::uuid, r.n, r.lo, r.hi, r.s, r.sw, r.w, r.mt, r.m, r.rest
                FROM heart_rate_hourly r JOIN fleet_map m ON m.old = r.device;
            INSERT INTO hrv_hourly (cell, device, sample, n, k, s, ss, hr, dn, dd, o50, o20)
                SELECT r.cell, m.new, md5(r.sample::text || ':\(name)')::uuid, r.n, r.k, r.s, r.ss, r.hr, r.dn, r.dd, r.o50, r.o20
                FROM hrv_hourly r JOIN fleet_map m ON m.old = r.device;
            COMMIT;
            """
    }
}
