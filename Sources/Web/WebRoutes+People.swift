import Control
import Foundation
import HealthModel
import HeartQueries
import Hummingbird

/// The People and Nearby pages: anyone with the viewer role reads; the coach (session cookie, CSRF token, same
/// site) adds and changes people, assigns and releases straps, scans and allows a sensor.
extension WebApplication {
    func addPeople(to router: Router<WebRequestContext>) {
        let access = access
        let people = people
        let fanout = fanout
        let logger = logger
        router.get("/people") { request, _ -> Response in
            // Opened with the viewer token, like the room: a viewer cookie, so its requests are a viewer's (403), not
            // nobody's (401).
            let (caller, cookie) = Self.rememberToken(access, request)
            guard caller.role != nil else { throw HTTPError(.unauthorized, message: "open this page with ?token=<viewer token>") }
            let message = request.uri.queryParameters.get("done").map { String($0) }
            let list = try await Self.asking { try await people.people() }
            let straps = fanout.source.snapshot().devices.map { PeoplePages.Strap(address: $0.address, name: $0.info?.name ?? $0.address) }
            var response = WebResponses.html(PeoplePages.people(list, straps: straps, caller: caller, message: message))
            if let cookie { response.setCookie(cookie) }
            return response
        }
        router.post("/people/save") { request, _ -> Response in
            let form = try await WebForm(request: request)
            _ = try access.requireStateChange(request, formToken: form["csrf"])
            let params = PersonSetCall.Params(
                uuid: form["uuid"].flatMap { $0.isEmpty ? nil : $0 }, name: form["name"]?.trimmingCharacters(in: .whitespaces) ?? "",
                heartRateMaximum: try Self.number(form["hrmax"], "HRmax"), age: try Self.number(form["age"], "age"),
                weightKg: try Self.decimal(form["weight"], "weight"), restingHeartRate: try Self.number(form["resting"], "resting HR"))
            let person = try await Self.asking { try await people.savePerson(params) }
            logger.info("web person saved", metadata: ["person": "\(person.uuid)"])
            return form.isJSON ? WebResponses.json(person) : WebResponses.redirect("/people?done=saved")
        }
        router.post("/people/assign") { request, _ -> Response in
            let form = try await WebForm(request: request)
            _ = try access.requireStateChange(request, formToken: form["csrf"])
            let person = try await Self.asking { try await people.assign(person: form["person"] ?? "", address: form["address"] ?? "") }
            logger.info("web strap assigned", metadata: ["person": "\(person.uuid)", "device": "\(person.strap ?? "")"])
            return form.isJSON ? WebResponses.json(person) : WebResponses.redirect("/people?done=assigned")
        }
        router.post("/people/unassign") { request, _ -> Response in
            let form = try await WebForm(request: request)
            _ = try access.requireStateChange(request, formToken: form["csrf"])
            try await Self.asking { try await people.unassign(address: form["address"] ?? "") }
            return WebResponses.redirect("/people?done=released")
        }
        router.get("/nearby") { request, _ -> Response in
            let caller = try access.require(.viewer, request)
            let message = request.uri.queryParameters.get("done").map { String($0) }
            return WebResponses.html(PeoplePages.nearby(nil, people: [], caller: caller, message: message))
        }
        router.post("/nearby/scan") { request, _ -> Response in
            let form = try await WebForm(request: request)
            let caller = try access.requireStateChange(request, formToken: form["csrf"])
            let seconds = try Self.decimal(form["seconds"], "seconds") ?? NearbyCall.defaultSeconds
            guard NearbyCall.secondsRange.contains(seconds) else {
                throw HTTPError(.badRequest, message: "scan for 1 to 8 seconds")
            }
            let result = try await Self.asking { try await people.nearby(seconds: seconds) }
            let list = try await Self.asking { try await people.people() }
            return form.isJSON ? WebResponses.json(result)
                : WebResponses.html(PeoplePages.nearby(result, people: list, caller: caller, message: nil))
        }
        router.post("/nearby/allow") { request, _ -> Response in
            let form = try await WebForm(request: request)
            _ = try access.requireStateChange(request, formToken: form["csrf"])
            let address = form["address"] ?? ""
            try await Self.asking { try await people.allow(address: address) }
            if let person = form["person"], !person.isEmpty {
                _ = try await Self.asking { try await people.assign(person: person, address: address) }
            }
            logger.info("web sensor allowed", metadata: ["device": "\(address)"])
            return WebResponses.redirect("/nearby?done=allowed")
        }
    }

    /// heartd's answer; its refusal of bad input a 400 with its message, anything else a 502.
    static func asking<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ControlError {
            let status: HTTPResponse.Status = switch error.code {
            case .invalidParams: .badRequest
            case .notFound: .notFound
            case .permissionDenied: .forbidden
            default: .badGateway
            }
            throw HTTPError(status, message: "heartd: \(error.message)")
        } catch {
            throw HTTPError(.badGateway, message: "heartd: \(error)")
        }
    }

    /// A whole number from a form field: empty is nil, anything else not a number a 400.
    static func number(_ text: String?, _ what: String) throws -> Int? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Int(text) else { throw HTTPError(.badRequest, message: "\(what) is a whole number") }
        return value
    }

    static func decimal(_ text: String?, _ what: String) throws -> Double? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Double(text), value.isFinite else { throw HTTPError(.badRequest, message: "\(what) is a number") }
        return value
    }
}
