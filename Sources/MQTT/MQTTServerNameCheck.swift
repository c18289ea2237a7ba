import NIOCore
import NIOSSL
import NIOTLS

/// Checks that the broker's certificate carries the name the client expects, and holds back every write (the CONNECT
/// with its password) until it does. Sits right after the `NIOSSLClientHandler`.
///
/// NIOSSL's own host-name check is not enough: it accepts a certificate whose subjectAltName holds the IP address the
/// socket is connected to, whatever name was expected. A broker at 127.0.0.1 with a certificate for `other.example`
/// and `IP:127.0.0.1` passed for `tls_server_name = "broker.example"`. Here the expected name must be in the
/// certificate itself: a DNS name in subjectAltName (RFC 6125, a `*.` wildcard standing for one left-most label) or,
/// when the expected name is an IP address, that address in subjectAltName. The subject's common name is not used.
final class MQTTServerNameCheck: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private let expected: String
    private var verified = false
    private var pending: [(data: NIOAny, promise: EventLoopPromise<Void>?)] = []
    private var flushPending = false

    init(expected: String) {
        self.expected = expected
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSUserEvent, case .handshakeCompleted = tls, !verified {
            do {
                try check(context: context)
                verified = true
                for (data, promise) in pending { context.write(data, promise: promise) }
                pending.removeAll()
                if flushPending { context.flush() }
            } catch {
                failPending(error)
                context.fireErrorCaught(error)
                context.close(promise: nil)
                return
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if verified {
            context.write(data, promise: promise)
        } else {
            pending.append((data, promise))
        }
    }

    func flush(context: ChannelHandlerContext) {
        if verified { context.flush() } else { flushPending = true }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failPending(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    private func failPending(_ error: any Error) {
        let promises = pending.compactMap(\.promise)
        pending.removeAll()
        for promise in promises { promise.fail(error) }
    }

    private func check(context: ChannelHandlerContext) throws(MQTTError) {
        let handler = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self)
        guard let peer = handler?.peerCertificate else {
            throw MQTTError(.tls, "the broker presented no certificate")
        }
        // NIOSSL's reading of subjectAltName (underscored: public, not promised stable; the TLS tests catch a change).
        let names = peer._subjectAlternativeNames().compactMap(SubjectName.init)
        guard Self.names(names, include: expected) else {
            let carried = names.map(\.description).joined(separator: ", ")
            throw MQTTError(.tls, "the broker's certificate is not for \(expected) (it names \(carried.isEmpty ? "no host in subjectAltName" : carried))")
        }
    }

    /// A DNS name or an IP address of a certificate's subjectAltName.
    enum SubjectName: Sendable, Hashable, CustomStringConvertible {
        case dns(String)
        case ip([UInt8])

        init?(_ name: _SubjectAlternativeName) {
            switch name.nameType {
            case .dnsName: self = .dns(String(decoding: Array(name.contents), as: UTF8.self))
            case .ipAddress: self = .ip(Array(name.contents))
            default: return nil
            }
        }

        var description: String {
            switch self {
            case let .dns(name): name
            case let .ip(bytes): bytes.count == 4 ? bytes.map { String($0) }.joined(separator: ".") : "an IPv6 address"
            }
        }
    }

    /// Whether subjectAltName `names` include `expected`: an IP address by its bytes, a host name case-insensitively.
    static func names(_ names: [SubjectName], include expected: String) -> Bool {
        if let address = try? SocketAddress(ipAddress: expected, port: 0) {
            let bytes = Self.bytes(address)
            return names.contains(.ip(bytes))
        }
        let lowered = expected.lowercased()
        let host = lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
        return names.contains { name in
            guard case let .dns(dns) = name else { return false }
            return matches(host: host, pattern: dns.lowercased())
        }
    }

    /// RFC 6125 6.4: equal, or a `*.` pattern whose rest equals the host after its first label (never a bare `*`, a
    /// partial label or the top two labels).
    static func matches(host: String, pattern: String) -> Bool {
        let pattern = pattern.hasSuffix(".") ? String(pattern.dropLast()) : pattern
        if !pattern.contains("*") { return host == pattern }
        guard pattern.hasPrefix("*."), pattern.dropFirst(2).contains("."), !pattern.dropFirst(2).contains("*"),
              let dot = host.firstIndex(of: "."), dot != host.startIndex else { return false }
        return host[dot...] == pattern.dropFirst(1)
    }

    private static func bytes(_ address: SocketAddress) -> [UInt8] {
        switch address {
        case let .v4(v4): withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case let .v6(v6): withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        case .unixDomainSocket: []
        }
    }
}
