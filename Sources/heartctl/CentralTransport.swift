import Control
import Foundation
import HealthModel
import HeartStore
import HeartQueries
import Logging
import Sync

/// `heartctl --central URL`: the same read commands as `--db`, over every gateway's samples in the central
/// PostgreSQL. `stats` and a range's `hrv` are answered where the data is (`CentralQueries`: per-bucket totals
/// from PostgreSQL, series streamed through a cursor). For the others the samples a command looks at
/// (`StoreQueries.scope`) are read from the central database into a private in-memory store, and the very same
/// `StoreQueries` answers — no second implementation of series, the exporters or the statistics' rules.
struct CentralTransport: Transport {
    let connector: CentralConnector
    /// `--gateway`: only this gateway's samples.
    let gateway: String?

    func call(_ method: ControlMethod, _ params: [String: JSONValue]) async throws -> JSONValue {
        try Self.readable(method)
        if CentralQueries.answers(method, params) {
            return try await withReader { reader in
                try await CentralQueries(reader: reader, gateway: gateway).handle(method, params)
            }
        }
        return try await loaded(method, params).handle(method, params)
    }

    /// Throws unless `method` is a read the central database answers.
    static func readable(_ method: ControlMethod) throws {
        guard StoreQueries.answers(method), !method.isStreaming, method != .delete, method != .changes else {
            throw CLIError(.needsDaemon, "'\(method.rawValue)' is not available with --central")
        }
    }

    /// `C`'s typed answer as `CentralQueries` or the memory store's `StoreQueries` makes it, as `--db` hands it over.
    func call<C: ControlCall>(_ call: C.Type, _ params: C.Params) async throws -> C.Result {
        let json = JSONBridge.params(params)
        try Self.readable(C.method)
        if CentralQueries.answers(C.method, json) {
            return try await withReader { reader in
                try await CentralQueries(reader: reader, gateway: gateway).answer(call, params)
            }
        }
        return try await loaded(C.method, json).answer(call, params)
    }

    func stream(_ method: ControlMethod, _ params: [String: JSONValue]) async throws -> AsyncThrowingStream<ControlEvent, any Error> {
        guard method == .export else {
            throw CLIError(.needsDaemon, "'\(method.rawValue)' needs the running daemon (leave out --central)")
        }
        return try await loaded(method, params).exportEvents(params)
    }

    /// Runs `body` with a reader on a new connection, closed after it; the central database's errors as heartctl's.
    private func withReader<T>(_ body: (CentralReader) async throws -> T) async throws -> T {
        var logger = Logger(label: "heartctl.central")
        logger.logLevel = .error
        let reader: CentralReader
        do {
            reader = try await CentralReader.open(connector: connector, logger: logger)
        } catch {
            throw CLIError(error.isPermanent ? .failed : .unreachable, "cannot use the central database \(connector.url): \(error)")
        }
        let result: Result<T, any Error>
        do {
            result = .success(try await body(reader))
        } catch {
            result = .failure(error)
        }
        await reader.close()
        switch result {
        case .success(let value):
            return value
        case .failure(let error as SyncError):
            throw CLIError(error.code == .connection || error.code == .timeout ? .unreachable : .failed, "central: \(error)")
        case .failure(let error as ControlError):
            throw error
        case .failure(let error as CLIError):
            throw error
        case .failure(let error):
            throw CLIError(.failed, "central: \(error)")
        }
    }

    /// A memory store holding the samples (or devices, or sessions) `method` needs, read from the central database.
    private func loaded(_ method: ControlMethod, _ params: [String: JSONValue]) async throws -> StoreQueries {
        let scope = try StoreQueries.scope(of: method, params)
        let memory = try HeartDatabase.inMemory()
        try await withReader { reader in
            if scope.sessionsOnly {
                for session in try await reader.sessions(gateway: gateway) { try memory.saveCopy(of: session) }
            } else if scope.devicesOnly {
                for device in try await reader.devices(gateway: gateway) {
                    try memory.upsertDevice(device.info, seenAt: device.firstSeen)
                    try memory.upsertDevice(device.info, seenAt: device.lastSeen)
                }
            } else {
                let samples = try await reader.samples(CentralReader.Filter(
                    uuid: scope.uuid, type: scope.type, device: scope.device, gateway: gateway, from: scope.from,
                    to: scope.to, limit: scope.limit, newestFirst: scope.newestFirst))
                try memory.save(samples)
            }
        }
        return StoreQueries(database: memory)
    }
}

