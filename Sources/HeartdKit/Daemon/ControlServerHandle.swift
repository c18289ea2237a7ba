import Control

/// The control server as the daemon's services see it (a protocol so tests can run without a socket).
public protocol ControlServerHandle: Sendable {
    func run() async
}

extension ControlServer: ControlServerHandle {}
