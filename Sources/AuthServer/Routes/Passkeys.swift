import Foundation
import Hummingbird
import Identity
import JOSE
import Sessions

/// Passkeys (WebAuthn) of the bearer's user, `BASE/auth/passkeys[…]` (access bearer;
/// registration and deletion need a sign-in in the last 10 minutes), and the options of a
/// passkey sign-in, `BASE/app/{app}/auth/providers/passkey/login/options` (the login itself is the
/// login route's, ``PasskeyLogin``). A refused registration is 400 `InvalidParameter`; a
/// malformed response or CBOR 400 `BadRequest`.
struct PasskeyRoutes: Sendable {
    let server: AuthServer
    /// Bytes of a passkey's name.
    static let maxName = 64

    func registrationOptions(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        try await MFARoutes.requireRecentSignIn(context)
        let (sessions, userID) = (context.app.sessions, context.session.userID)
        let options = try await sessions.passkeyRegistrationOptions(
            userID: userID, userName: try await MFARoutes.email(of: userID, sessions: sessions), rpName: context.app.config.id,
            relyingParty: server.config.passkeys)
        return JSONResponse.ok(["publicKey": options], noStore: true)
    }

    func register(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        let body = try await RequestJSON.read(request, context: context.base)
        let name = try body.optionalString("name", maxBytes: Self.maxName) ?? "passkey"
        guard let value = body.object["credential"], value != .null else {
            throw TokenError(.missingParameter, "the request body has no \"credential\"")
        }
        let response = try WebAuthnRegistrationResponse(json: value)
        try await MFARoutes.requireRecentSignIn(context)
        let passkey: PasskeyRecord
        do {
            passkey = try await context.app.sessions.registerPasskey(
                userID: context.session.userID, response: response, name: name, relyingParty: server.config.passkeys)
        } catch let e as TokenError where e.code != .malformedCBOR && e.code != .webAuthnMalformed && e.code.kind == .rejected {
            throw TokenError(.invalidParameter, "the passkey was refused: \(e.message)")
        }
        return JSONResponse.make(status: 201, .object(Self.json(passkey, lastUsed: false)), noStore: true)
    }

    func list(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        let passkeys = try await context.app.sessions.passkeys(userID: context.session.userID)
        return JSONResponse.make(status: 200, .array(passkeys.map { .object(Self.json($0, lastUsed: true)) }), noStore: true)
    }

    func delete(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        let id = try context.base.parameters.require("id")
        try await MFARoutes.requireRecentSignIn(context)
        guard try await context.app.sessions.deletePasskey(userID: context.session.userID, id: id) else {
            throw TokenError(.notFound, "the user has no such passkey")
        }
        return JSONResponse.noContent()
    }

    /// `{}` → the options of a discoverable sign-in and its `challenge_id`.
    func loginOptions(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let app = try server.pathApp(context)
        guard server.signsInWithPasskeys(app.config.id) else {
            throw TokenError(.providerNotFound, "the app has no passkey provider")
        }
        _ = try await RequestJSON.read(request, context: context)
        let (options, challengeID) = try await app.sessions.passkeyLoginOptions(relyingParty: server.config.passkeys)
        return JSONResponse.ok(["publicKey": options, "challenge_id": .string(challengeID)], noStore: true)
    }

    /// A passkey as the JSON the routes answer: id, name, times as RFC 3339 strings.
    static func json(_ p: PasskeyRecord, lastUsed: Bool) -> JSONObject {
        var o: JSONObject = ["id": .string(p.id), "name": .string(p.name), "created_at": .string(rfc3339(p.createdAt))]
        if lastUsed { o["last_used_at"] = p.lastUsedAt.map { .string(rfc3339($0)) } ?? .null }
        return o
    }

    private static func rfc3339(_ unixSeconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(unixSeconds)).formatted(.iso8601)
    }
}
