import Foundation
import HealthModel
import Hummingbird

/// JSON over HTTP: status, devices, sessions; the coach's session start and stop.
extension WebApplication {
    func addAPI(to router: Router<WebRequestContext>) {
        let access = access
        let fanout = fanout
        let control = control
        let logger = logger
        router.get("/api/status") { request, _ -> Response in
            _ = try access.require(.viewer, request)
            let snapshot = fanout.source.snapshot()
            return WebResponses.json(StatusView(daemonReachable: snapshot.daemonReachable, devices: snapshot.devices.count,
                                                activeSessions: snapshot.activeSessions.count, clients: fanout.clientCount,
                                                droppedClients: fanout.droppedCount, heartd: snapshot.status?.version))
        }
        router.get("/api/devices") { request, _ -> Response in
            _ = try access.require(.viewer, request)
            let snapshot = fanout.source.snapshot()
            return WebResponses.json(snapshot.devices.map { DeviceView($0, hrmax: fanout.hrmax) })
        }
        router.get("/api/sessions") { request, _ -> Response in
            _ = try access.require(.viewer, request)
            let limit = request.uri.queryParameters.get("limit", as: Int.self).map { min(max($0, 1), 1000) } ?? 100
            do {
                return WebResponses.json(try await control.sessions(limit: limit))
            } catch {
                throw HTTPError(.badGateway, message: "heartd: \(error)")
            }
        }
        router.post("/api/sessions/start") { request, _ -> Response in
            let form = try await WebForm(request: request)
            _ = try access.requireStateChange(request, formToken: form["csrf"])
            let label = try Self.label(form["label"])
            let session: Session
            do {
                session = try await control.startSession(label: label)
            } catch {
                throw HTTPError(.badGateway, message: "heartd refused: \(error)")
            }
            logger.info("web session started", metadata: ["session": "\(session.uuid)"])
            return form.isJSON ? WebResponses.json(session, status: .created) : WebResponses.redirect("/")
        }
        router.post("/api/sessions/stop") { request, _ -> Response in
            let form = try await WebForm(request: request)
            _ = try access.requireStateChange(request, formToken: form["csrf"])
            let uuid = form["uuid"].flatMap { $0.isEmpty ? nil : $0 } ?? fanout.source.snapshot().activeSessions.first?.uuid.uuidString
            let session: Session
            do {
                session = try await control.stopSession(uuid: uuid)
            } catch {
                throw HTTPError(.badGateway, message: "heartd refused: \(error)")
            }
            logger.info("web session stopped", metadata: ["session": "\(session.uuid)"])
            return form.isJSON ? WebResponses.json(session) : WebResponses.redirect("/")
        }
    }

    /// A session label: trimmed, empty = none, at most 200 characters, no control characters.
    static func label(_ text: String?) throws -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        guard text.count <= 200, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw HTTPError(.badRequest, message: "a label is at most 200 characters, without control characters")
        }
        return text
    }
}

/// `/api/status`.
struct StatusView: Codable, Sendable, Hashable {
    var daemonReachable: Bool
    var devices: Int
    var activeSessions: Int
    /// Browsers and API clients following /api/live or /api/events.
    var clients: Int
    /// Clients dropped for reading too slowly since start.
    var droppedClients: Int
    /// heartd's version, when reachable.
    var heartd: String?
}
