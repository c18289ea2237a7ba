import Control
import HeartdConfig
import Logging
import Systemd

extension HeartdConfiguration {
    /// The control server settings for this configuration (empty group names mean "none").
    public func controlServerConfiguration(environment: [String: String]) -> ControlServerConfiguration {
        ControlServerConfiguration(
            path: controlSocketPath(environment: environment),
            group: control.group.isEmpty ? nil : control.group,
            adminGroup: control.adminGroup.isEmpty ? nil : control.adminGroup,
            sessionGroup: control.sessionGroup.isEmpty ? nil : control.sessionGroup,
            maxClients: control.maxClients,
            maxLineBytes: control.maxLineBytes
        )
    }

    /// The logging bootstrap for `[log]`: `LoggingSystem.bootstrap { bootstrap.handler(label: $0) }`.
    public func loggingBootstrap(environment: [String: String]) -> LoggingBootstrap {
        LoggingBootstrap(target: log.target, level: log.level, environment: environment)
    }
}
