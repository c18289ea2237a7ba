import SyncConfig

/// The `[sync]` settings of `heartd-sync` (docs/CONFIGURATION.md, docs/CENTRAL.md).
extension ConfigurationSchema {
    static let syncSettings: [ConfigurationSetting] = [
        string("sync", "url", \.sync.url) { url in
            guard !url.isEmpty else { return nil }
            do throws(SyncError) { _ = try CentralURL(url); return nil } catch { return error.detail }
        },
        choice("sync", "tls", \.sync.tls),
        string("sync", "ca_file", \.sync.caFile) { absoluteOrEmpty($0) },
        string("sync", "password_file", \.sync.passwordFile) { absoluteOrEmpty($0) },
        string("sync", "gateway", \.sync.gateway) { name in
            name.count <= 128 && !name.contains(where: { $0.isNewline }) ? nil : "at most 128 characters on one line"
        },
        seconds("sync", "interval", \.sync.intervalSeconds, 0.1...86400),
        integer("sync", "batch_size", \.sync.batchSize, 1...10_000),
        integer("sync", "batch_rows", \.sync.batchRows, 100...1_000_000),
        seconds("sync", "timeout", \.sync.timeoutSeconds, 0.5...3600),
        seconds("sync", "retry_max", \.sync.retryMaxSeconds, 1...86400),
        string("sync", "state_file", \.sync.stateFile) { $0.hasPrefix("/") ? nil : "must be an absolute path" },
    ]

    private static func absoluteOrEmpty(_ path: String) -> String? {
        path.isEmpty || path.hasPrefix("/") ? nil : "must be an absolute path (or empty)"
    }
}
