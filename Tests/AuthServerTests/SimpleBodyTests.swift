import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

@testable import AuthServer

/// The contract's "Browsers on other origins": a JSON route's body sent as one of the three types a
/// page on any site may make a browser post without a CORS preflight is 415 `BadRequest` before
/// anything is read, so no cross-site page can create anonymous users or post a login or a
/// registration through its visitors' browsers. `application/json` (with parameters) and no
/// `Content-Type` at all are read as before; the OAuth endpoints take forms only.
@Suite("Bodies say what they are")
struct SimpleBodyTests {
    static func post(_ s: LiveServer, _ path: String, body: String, contentType: String?) async throws -> LiveServer.Answer {
        var request = HTTPClientRequest(url: s.baseURL + path)
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: body))
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(90))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return LiveServer.Answer(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: String(buffer: bytes))
    }

    static let simpleTypes = [
        "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
        " Text/Plain ",
    ]

    @Test("an anonymous login, a registration and a password login posted as a cross-site type: 415 BadRequest, no user made", arguments: StoreKind.available)
    func crossSiteTypesAreRefused(kind: StoreKind) async throws {
        let apps = #"{ "myapp": { "providers": { "anon-user": {}, "local-userpass": { "auto_confirm": true } } } }"#
        try await LiveServer.with(kind, apps: apps) { s in
            let app = LiveServer.base + "/app/myapp/auth/providers"
            for type in Self.simpleTypes {
                let anonymous = try await Self.post(s, app + "/anon-user/login", body: "{}", contentType: type)
                #expect(anonymous.status == 415 && anonymous.errorCode == "BadRequest", "\(type): \(anonymous.status) \(anonymous.body)")
                #expect(anonymous["access_token"] == nil)
                let register = try await Self.post(
                    s, app + "/local-userpass/register", body: #"{"email":"csrf@example.com","password":"correct horse 1"}"#, contentType: type)
                #expect(register.status == 415 && register.errorCode == "BadRequest", "\(type): \(register.body)")
            }
            // Nothing was registered: a login with that address and password is refused.
            let login = try await Self.post(
                s, app + "/local-userpass/login", body: #"{"username":"csrf@example.com","password":"correct horse 1"}"#, contentType: "application/json")
            #expect(login.status == 401 && login.errorCode == "AuthError", "\(login.body)")
            // What the SDKs send is read as before.
            for type in ["application/json", "application/json; charset=utf-8", nil] {
                let anonymous = try await Self.post(s, app + "/anon-user/login", body: "{}", contentType: type)
                #expect(anonymous.status == 200 && anonymous["access_token"] != nil, "\(type ?? "no type"): \(anonymous.body)")
            }
        }
    }

    @Test("the OAuth endpoints take form bodies only: JSON or text is invalid_request")
    func oauthFormsOnly() async throws {
        try await LiveServer.with(.sqlite) { s in
            for type in ["application/json", "text/plain", nil] {
                let answer = try await Self.post(s, "/oauth/token", body: "grant_type=refresh_token&refresh_token=x&client_id=myapp", contentType: type)
                #expect(answer.status == 400 && answer["error"] == "invalid_request", "\(type ?? "no type"): \(answer.body)")
            }
        }
    }
}
