import Foundation
import Hummingbird
import JOSE
import Logging
import Synchronization

/// The one place errors become responses, and where every request is logged and counted.
///
/// Log lines carry the request id, app, route pattern, status and duration; never a header,
/// body, token or secret.
struct RequestMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let server: AuthServer
    let known: KnownPaths
    /// Which origins' pages may read the answers (docs/server.md, "A web app on another origin").
    let cors: CORSPolicy

    init(server: AuthServer, known: KnownPaths) {
        self.server = server
        self.known = known
        cors = CORSPolicy(config: server.config)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var context = context
        if let header = server.config.trustedProxyHeader?.lowercased() {
            let values = request.headers.filter { $0.name.canonicalName == header }.map(\.value)
            context.clientAddress = ClientAddress.resolve(peer: context.clientAddress, forwarded: values, proxies: server.config.trustedProxies)
        }
        // What the per-address limits count: an IPv6 client by its /64.
        context.clientAddress = context.clientAddress.map(ClientAddress.key)
        var response: Response
        let exempt = request.uri.path == "/healthz" || request.uri.path == "/metrics"
        var request = request
        let preflight = CORSPolicy.isPreflight(request)
        if preflight {
            // A browser's question before a cross-origin call: no token, no slot, no route.
            response = cors.preflight(request)
        } else if let refused = await receive(&request, context: context) {
            // The body first, within `body_timeout`, holding no `max_in_flight` slot: a client that
            // sends a head and stalls must not take a slot from the requests that arrive whole.
            response = refused
        } else if !exempt, !server.inFlight.enter() {
            response = errorResponse(
                TokenError(.serverBusy, "the server is at its limit of requests in flight; try again shortly").retrying(after: 1),
                request: request, context: context)
        } else {
            do {
                response = try await next(request, context)
            } catch {
                response = errorResponse(error, request: request, context: context)
            }
            if !exempt { server.inFlight.leave() }
        }
        // Errors included: realm-web reads a 401's status to refresh and retry.
        if !preflight { cors.apply(to: &response, of: request, bearerApp: context.app) }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let route = context.endpointPath ?? (preflight ? "preflight" : "NotFound")
        server.metrics.record(route: route, status: Int(response.status.code), duration: elapsed)
        var line: Logger.Metadata = [
            "request_id": .string(context.requestID), "method": .string(request.method.rawValue), "route": .string(route),
            "status": .stringConvertible(response.status.code), "duration_ms": .string(String(format: "%.1f", seconds * 1000)),
        ]
        if let app = context.app { line["app"] = .string(app) }
        server.logger.info("request", metadata: line)
        return response
    }

    /// Receives `request`'s body; the error response when it is too large, late or cut off.
    private func receive(_ request: inout Request, context: Context) async -> Response? {
        do {
            try await request.receiveBody(upTo: context.maxUploadSize, within: server.config.bodyTimeout)
            return nil
        } catch {
            return errorResponse(error, request: request, context: context)
        }
    }

    /// The response for any error: TokenError by its code, Hummingbird's own errors by status.
    func errorResponse(_ error: any Error, request: Request, context: Context) -> Response {
        var mapping: ErrorMapping
        var message: String
        var allowed: [String] = []
        var retryAfter: Int64?
        var members: JSONObject?
        switch error {
        case let e as TokenError:
            mapping = ErrorMapping.of(e.code)
            message = e.message
            (retryAfter, members) = (e.retryAfter, e.answerMembers)
            if e.code == .storeUnavailable {
                // Where the store lives and how it failed is for the operator, not the client.
                server.logger.warning("store unavailable", metadata: ["request_id": .string(context.requestID), "error": .string(e.message)])
                message = "the session store is unavailable; retry shortly"
            }
            if let detail = e.detail {
                // Where an outside call went and how it failed underneath: for the operator only.
                var line: Logger.Metadata = [
                    "request_id": .string(context.requestID), "error_code": .string(e.code.rawValue), "detail": .string(detail),
                ]
                if let app = context.app { line["app"] = .string(app) }
                server.logger.warning("outside call failed", metadata: line)
            }
        case let e as any HTTPResponseError:
            mapping = ErrorMapping.of(status: Int(e.status.code))
            if mapping.status == 404 {
                allowed = known.methods(matching: request.uri.path)
                if !allowed.isEmpty { mapping = ErrorMapping.of(status: 405) }
            }
            switch mapping.status {
            case 404: message = "no route has this path"
            case 405: message = "this path does not take \(request.method.rawValue)"
            case 413: message = "the request body is larger than \(context.maxUploadSize) bytes"
            default: message = (e as? HTTPError)?.body ?? "bad request"
            }
        default:
            mapping = ErrorMapping.internalError
            message = ""
        }
        if mapping.status >= 500, mapping.name == "InternalServerError" {
            server.logger.error("internal error", metadata: ["request_id": .string(context.requestID), "error": .error(error)])
            message = "internal server error (request id \(context.requestID))"
        }
        var body: JSONObject = [
            "error": .string(message), "error_code": .string(mapping.name),
            "link": .string(server.config.publicURL + "/errors#" + mapping.name),
        ]
        for (name, value) in members ?? [:] where body[name] == nil { body[name] = value }
        var headers = HTTPFields()
        // RFC 9110 §15.5.6: a 405 names the methods the path takes.
        if mapping.status == 405, !allowed.isEmpty { headers[.allow] = allowed.joined(separator: ", ") }
        // Every 429 says when to retry (a refusal that knows no wait of its own, the password
        // hasher's full queue, is worth a second); a 503 only when its refusal knows one.
        if mapping.status == 429 || (mapping.status == 503 && retryAfter != nil) { headers[.retryAfter] = String(retryAfter ?? 1) }
        // Members beside the error's own (an `mfa_token`) may be credentials: never cached.
        return JSONResponse.make(status: mapping.status, .object(body), headers: headers, noStore: members != nil)
    }
}

/// The path patterns routes were added with and their methods, so that a router miss on a known
/// path is a 405 naming the methods it takes.
final class KnownPaths: Sendable {
    private let patterns = Mutex<[(parts: [Substring], method: String)]>([])

    func add(_ pattern: String, method: HTTPRequest.Method) {
        patterns.withLock { $0.append((pattern.split(separator: "/"), method.rawValue)) }
    }

    /// The methods of the patterns `path` matches, sorted; none for a path no route has. As the
    /// router does, a literal segment wins over a parameter at the same place: `…/passkeys/registration`
    /// is that route's alone, not also `…/passkeys/:id`'s.
    func methods(matching path: String) -> [String] {
        let parts = path.split(separator: "/")
        var matching = patterns.withLock { all in
            all.filter { p in p.parts.count == parts.count && zip(p.parts, parts).allSatisfy { $0.hasPrefix(":") || $0 == $1 } }
        }
        for (i, part) in parts.enumerated() where matching.contains(where: { $0.parts[i] == part }) {
            matching.removeAll { $0.parts[i] != part }
        }
        return Set(matching.map(\.method)).sorted()
    }
}
