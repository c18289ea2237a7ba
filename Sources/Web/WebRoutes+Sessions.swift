import Control
import Foundation
import HeartQueries
import Hummingbird
import NIOCore

/// The Sessions page (`/sessions`), a finished session's report (`/sessions/<uuid>/report`, heartd's `report`) and its
/// exports (`/sessions/<uuid>/export?format=csv|fit`, heartd's `export`, streamed). All for the viewer role.
extension WebApplication {
    /// The report is heartd's own self-contained HTML (inline style and SVG, no script): served under a policy of its
    /// own that runs no script at all (`sandbox` without `allow-scripts`) and fetches nothing.
    static let reportPolicy = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        + "form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

    func addSessions(to router: Router<WebRequestContext>) {
        let access = access
        let control = control
        let logger = logger
        router.get("/sessions") { request, _ -> Response in
            let (caller, cookie) = Self.rememberToken(access, request)
            guard caller.role != nil else { throw HTTPError(.unauthorized, message: "open this page with ?token=<viewer token>") }
            let sessions = try await Self.askHeartd { try await control.sessions(limit: 200) }
            var response = WebResponses.html(SessionsPage.render(sessions))
            if let cookie { response.setCookie(cookie) }
            return response
        }
        router.get("/sessions/{uuid}/report") { request, context -> Response in
            _ = try access.require(.viewer, request)
            let uuid = try Self.sessionUUID(context)
            var response = WebResponses.html(try await Self.askHeartd { try await control.report(session: uuid) })
            response.headers[.contentSecurityPolicy] = Self.reportPolicy
            return response
        }
        router.get("/sessions/{uuid}/export") { request, context -> Response in
            _ = try access.require(.viewer, request)
            let uuid = try Self.sessionUUID(context)
            let name = request.uri.queryParameters.get("format") ?? ExportFormat.csv.rawValue
            guard let format = SessionsPage.exports.first(where: { $0.format.rawValue == name })?.format else {
                throw HTTPError(.badRequest, message: "format: one of \(SessionsPage.exports.map(\.format.rawValue).joined(separator: ", "))")
            }
            let chunks = try await Self.askHeartd { try await control.export(session: uuid, format: format) }
            let type = format.isBinary ? "application/vnd.ant.fit" : "text/csv; charset=utf-8"
            return Response(status: .ok, headers: [.contentType: type,
                                                   .contentDisposition: "attachment; filename=\"session-\(uuid.uuidString).\(format.rawValue)\""],
                            body: ResponseBody { writer in
                                do {
                                    for try await chunk in chunks { try await writer.write(ByteBuffer(bytes: chunk)) }
                                } catch {
                                    // The headers are out: the download ends short, and the log says why.
                                    logger.warning("web export ended short", metadata: ["session": "\(uuid)", "error": "\(error)"])
                                }
                                try await writer.finish(nil)
                            })
        }
    }

    static func sessionUUID(_ context: WebRequestContext) throws -> UUID {
        guard let uuid = UUID(uuidString: try context.parameters.require("uuid")) else {
            throw HTTPError(.badRequest, message: "not a session UUID")
        }
        return uuid
    }

    /// A call to heartd, its errors as HTTP: no such session 404, bad parameters 400, anything else 502.
    static func askHeartd<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ControlError where error.code == .notFound {
            throw HTTPError(.notFound, message: "heartd: \(error.message)")
        } catch let error as ControlError where error.code == .invalidParams {
            throw HTTPError(.badRequest, message: "heartd: \(error.message)")
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError(.badGateway, message: "heartd: \(error)")
        }
    }
}
