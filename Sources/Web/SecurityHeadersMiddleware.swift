import Hummingbird

/// Adds the Content-Security-Policy and its companions to every response, errors included, and turns an
/// `HTTPError` into a plain-text response (its message escaped by being text, never HTML).
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Scripts, styles and connections from this origin only; no inline script, no frames, forms post here only.
    static var policy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError {
            response = Response(status: error.status, headers: error.headers,
                                body: .init(byteBuffer: .init(string: (error.body ?? error.status.reasonPhrase) + "\n")))
            response.headers[.contentType] = "text/plain; charset=utf-8"
        }
        // A route may set a stricter policy of its own (a session's report: `WebApplication.reportPolicy`).
        if response.headers[.contentSecurityPolicy] == nil { response.headers[.contentSecurityPolicy] = Self.policy }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "same-origin"
        response.headers[.xFrameOptions] = "DENY"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
