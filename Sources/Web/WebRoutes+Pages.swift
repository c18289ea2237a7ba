import Foundation
import Hummingbird

/// The pages, the assets and the coach's log in and out.
extension WebApplication {
    func addPages(to router: Router<WebRequestContext>) {
        let access = access
        let limiter = limiter
        let logger = logger
        router.get("/") { request, _ -> Response in
            let (caller, cookie) = Self.rememberToken(access, request)
            guard caller.role != nil else {
                if access.credentials.coachPasswordHash != nil { return WebResponses.redirect("/login") }
                throw HTTPError(.unauthorized, message: "open this page with ?token=<viewer token>")
            }
            var response = WebResponses.html(Pages.room(caller: caller, coachConfigured: access.credentials.coachPasswordHash != nil))
            if let cookie { response.setCookie(cookie) }
            return response
        }
        router.get("/overlay/{device}") { request, context -> Response in
            _ = try access.require(.viewer, request)
            let raw = try context.parameters.require("device")
            let device = raw.removingPercentEncoding ?? raw
            let (_, cookie) = Self.rememberToken(access, request)
            let query = Self.query(request)
            var response = WebResponses.html(Pages.overlay(device: device.uppercased(), options: OverlayOptions(query: query)))
            if let cookie { response.setCookie(cookie) }
            return response
        }
        router.get("/assets/room.js") { _, _ in WebResponses.asset(RoomScript.source, type: "text/javascript; charset=utf-8") }
        router.get("/assets/overlay.js") { _, _ in WebResponses.asset(OverlayScript.source, type: "text/javascript; charset=utf-8") }
        router.get("/assets/style.css") { _, _ in WebResponses.asset(Stylesheet.source, type: "text/css; charset=utf-8") }

        router.get("/login") { _, _ in WebResponses.html(Pages.login(message: nil)) }
        router.post("/login") { request, context -> Response in
            try access.requireSameSite(request)
            let peer = context.peerAddress
            guard limiter.allows(peer) else {
                logger.warning("web login rate-limited", metadata: ["peer": "\(peer)"])
                throw HTTPError(.tooManyRequests, message: "too many failed log-ins; wait a minute")
            }
            let form = try await WebForm(request: request)
            guard access.credentials.isCoachPassword(form["password"] ?? "") else {
                limiter.recordFailure(peer)
                logger.notice("web login failed", metadata: ["peer": "\(peer)"])
                return WebResponses.html(Pages.login(message: "Wrong password."), status: .unauthorized)
            }
            limiter.recordSuccess(peer)
            let (id, _) = access.sessions.create(.coach)
            logger.info("web coach logged in", metadata: ["peer": "\(peer)"])
            var response = WebResponses.redirect("/")
            response.setCookie(access.cookie(id))
            return response
        }
        router.post("/logout") { request, _ -> Response in
            let form = try await WebForm(request: request)
            let caller = try access.requireStateChange(request, formToken: form["csrf"])
            if let id = caller.sessionID { access.sessions.remove(id) }
            var response = WebResponses.redirect("/")
            response.setCookie(Cookie(name: WebSessions.cookieName, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
    }

    /// A page opened with the viewer token gets a viewer session cookie, so that its WebSocket needs no token.
    static func rememberToken(_ access: WebAccess, _ request: Request) -> (WebAccess.Caller, Cookie?) {
        var caller = access.caller(request)
        guard caller.presentedToken else { return (caller, nil) }
        let (id, entry) = access.sessions.create(.viewer)
        caller.sessionID = id
        caller.session = entry
        return (caller, access.cookie(id))
    }
}
