import Foundation
import Hummingbird

/// The fields of a state-changing request: an HTML form (`application/x-www-form-urlencoded`) or a JSON object of
/// strings, at most 16 KiB.
struct WebForm: Sendable {
    var fields: [String: String]
    var isJSON: Bool

    init(request: Request) async throws {
        var body = try await request.body.collect(upTo: 16 * 1024)
        let text = body.readString(length: body.readableBytes) ?? ""
        let type = request.headers[.contentType]?.lowercased() ?? ""
        if type.hasPrefix("application/json") {
            isJSON = true
            let object = text.isEmpty ? [:] : try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            guard let object else { throw HTTPError(.badRequest, message: "expected a JSON object") }
            fields = object.compactMapValues { $0 as? String }
        } else {
            isJSON = false
            var components = URLComponents()
            components.percentEncodedQuery = text.replacingOccurrences(of: "+", with: "%20")
            var fields: [String: String] = [:]
            for item in components.queryItems ?? [] where fields[item.name] == nil { fields[item.name] = item.value ?? "" }
            self.fields = fields
        }
    }

    subscript(name: String) -> String? { fields[name] }
}
