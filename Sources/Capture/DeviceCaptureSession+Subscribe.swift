import BlueZ
import Logging
import LogFields
import SourceEvents
import Systemd

/// Subscribing to Heart Rate Measurement: AcquireNotify (a socket, no D-Bus per value) when configured, and
/// StartNotify when BlueZ refuses it for this connection.
///
/// A refusal is BlueZ's answer about the characteristic *now* — another client holds its socket or has a
/// StartNotify session on it, an older BlueZ, a characteristic that only indicates — not a fault of the sensor:
/// the connection goes on with StartNotify, without an error or a back-off, and loses nothing a StartNotify
/// subscription would not. The next connection (and a re-subscribe after a silent stop) asks for AcquireNotify
/// again: the other client may be gone by then, and remembering a refusal would need a rule for when to forget it.
extension Runner {
    mutating func subscribe(_ path: String, flags: [String]) async throws {
        hrmPath = path
        let char = GattCharacteristic(connection: s.connection, path: path)
        let route = NotifyRouter.Route(address: s.address, kind: .heartRate, stats: s.stats,
                                       silence: .init(alarms: s.alarms, session: s.id, timeout: s.policy.silentStopTimeout))
        var refusal: (reason: SubscribeFallbackReason, error: BlueZError)?
        if s.policy.subscribeMode == .acquireNotify {
            do {
                do {
                    try await acquire(char, route: route)
                } catch let e as BlueZError where e.kind == .inProgress {
                    // The StartNotify session in the way may be ours, left from a connection that fell back and then
                    // lost its link (bluetoothd keeps the sessions of a device whose GATT objects outlive the link, a
                    // bonded one's; a lost link skips StopNotify). StopNotify ends only the caller's session: if it
                    // succeeds, ask again — else a fallback would stick for good; if not, the session is another's.
                    guard (try? await char.stopNotify()) != nil else { throw e }
                    try await acquire(char, route: route)
                }
                mode = .acquireNotify
                s.stats.update { $0.subscribeMode = .acquireNotify; $0.subscribeFallback = nil }
                s.logger.info("subscribed", metadata: ["subscribe": "\(mode.rawValue)"])
                return
            } catch let e as BlueZError where e.kind != .cancelled && !Task.isCancelled {
                refusal = (SubscribeFallbackReason(e), e)
            }
        }
        s.router.add(path: path, route)  // before StartNotify: the first value may come right after the reply
        do {
            try await char.startNotify()
        } catch let e as BlueZError where e.kind == .inProgress {
            // our own session from before is still on
        } catch let e where refusal != nil && !Task.isCancelled {
            // the attempt fails (and is retried) with both answers: the refusal explains a StartNotify that then
            // finds "Notify acquired" (as src/gatt-client.c reads, an AcquireNotify whose CCC write failed is never
            // answered — our call times out — and keeps its claim on the characteristic until the link goes)
            throw SessionFault("StartNotify failed after AcquireNotify was refused (\(refusal.map { "\($0.error)" } ?? "")): \(e)")
        }
        mode = .startNotify
        s.stats.update { $0.subscribeMode = .startNotify; $0.subscribeFallback = refusal?.reason }
        if let refusal, !fellBack {
            fellBack = true
            s.stats.update { $0.subscribeFallbacks += 1 }
            s.logger.notice("AcquireNotify refused; subscribed with StartNotify for this connection", metadata: [
                LogField.messageID.key: "\(MessageID.subscribeFallback.hex)", "reason": "\(refusal.reason.rawValue)",
                "error": "\(refusal.error)",
            ])
        }
        s.logger.info("subscribed", metadata: ["subscribe": "\(mode.rawValue)"])
    }

    /// AcquireNotify and a reader on its socket; throws `BlueZError` when BlueZ refuses or the reply is unusable.
    private mutating func acquire(_ char: GattCharacteristic, route: NotifyRouter.Route) async throws {
        let (fd, mtu) = try await char.acquireNotify()
        guard let raw = fd.take() else {
            throw BlueZError(kind: .unexpectedReply, name: "heartd.BlueZ.UnexpectedReply", message: "AcquireNotify fd already taken")
        }
        let router = s.router
        let inbox = s.inbox
        reader = AcquiredNotifyReader(poller: s.poller, fd: raw, mtu: mtu, batching: s.policy.readBatching,
                                      onValues: { for d in $0 { router.deliver(route, d) } },
                                      onClosed: { inbox.yield(.fdClosed) })
    }

    mutating func unsubscribe(callBluez: Bool) async {
        if let reader {
            reader.close()
            self.reader = nil
        }
        if let path = hrmPath {
            s.router.remove(path: path)
            if callBluez && mode == .startNotify {
                try? await GattCharacteristic(connection: s.connection, path: path).stopNotify()
            }
        }
    }
}

extension SubscribeFallbackReason {
    /// BlueZ's refusal of AcquireNotify, classified.
    init(_ error: BlueZError) {
        switch error.kind {
        case .notPermitted: self = .notifyAcquired
        case .inProgress: self = .inProgress
        case .notSupported: self = .notSupported
        case .unknownMethod: self = .unknownMethod
        case .failed, .notConnected: self = .failed
        case .unexpectedReply: self = .unusableReply
        case .timeout: self = .timeout
        default: self = .other
        }
    }
}
