import Foundation
import Identity
import JOSE
import ProviderStandIn
import Testing

/// The custom-function login against a stand-in function on 127.0.0.1 (docs/identity.md, `custom-function`).
@Suite struct CustomFunctionProviderTests {
    static func withFunction(
        timeout: TimeInterval = 30,
        _ body: (CustomFunctionProvider, FunctionStandIn, AsyncHTTPClientTransport) async throws -> Void
    ) async throws {
        let function = try await FunctionStandIn.start()
        let transport = AsyncHTTPClientTransport()
        do {
            var config = CustomFunctionProvider.Configuration(url: function.url, secret: function.secret)
            config.timeout = timeout
            try await body(try CustomFunctionProvider(configuration: config, transport: transport), function, transport)
            try? await transport.shutdown()
            try? await function.shutdown()
        } catch {
            try? await transport.shutdown()
            try? await function.shutdown()
            throw error
        }
    }

    @Test func signatureMatchesTheDefinition() throws {
        // HMAC-SHA256 (RFC 2104/FIPS 198-1) of "<t>.<purpose>.<body>"; the value computed independently with
        // `printf '1700000000.login.{"a":1}' | openssl dgst -sha256 -hmac 0123456789abcdef0123456789abcdef`.
        let header = try CustomFunctionProvider.signature(
            secret: Array("0123456789abcdef0123456789abcdef".utf8),
            body: Array(#"{"a":1}"#.utf8), time: 1_700_000_000, purpose: "login")
        #expect(header == "t=1700000000,p=login,v1=ea04bf59ece78b216844b661d1ecc69d07cffd72534005bf37762d6f81651437")
    }

    @Test func acceptedAnswerBecomesTheIdentity() async throws {
        try await Self.withFunction { provider, function, _ in
            let identity = try await provider.verify(payload: [
                "user": "ada", "name": "Ada Lovelace", "email": "ada@example.com",
                "provider": "custom-function", "options": .object(["device": .object(["deviceId": "d1"])]),
            ])
            #expect(identity.provider == "custom-function")
            #expect(identity.subject == "ada")
            #expect(identity.name == "Ada Lovelace")
            #expect(identity.email == "ada@example.com")
            // The function got the body without provider and options, signed (the stand-in checked it).
            let sent = try #require(function.received.last)
            let body = try #require(try JSONValue(parsing: String(decoding: sent.body, as: UTF8.self)).objectValue)
            #expect(Set(body.keys) == ["user", "name", "email"])
            #expect(function.signatureIsValid(sent.header("X-TokenTool-Signature"), body: sent.body, purpose: "login"))
            #expect(sent.method == "POST" && sent.header("Content-Type") == "application/json")
        }
    }

    @Test func refusalsAndFailures() async throws {
        try await Self.withFunction { provider, function, transport in
            func code(_ user: String) async -> String? { await errorCode { _ = try await provider.verify(payload: ["user": .string(user)]) } }
            #expect(await code("refuse") == "function_refused")
            #expect(await code("bad-request") == "function_refused")
            #expect(await code("crash") == "function_failed")
            // Only the stall runs under a 1 s timeout: the other answers get the default, so a busy
            // machine cannot turn a slow "refuse" into a timeout.
            var short = CustomFunctionProvider.Configuration(url: function.url, secret: function.secret)
            short.timeout = 1
            let impatient = try CustomFunctionProvider(configuration: short, transport: transport)
            #expect(await errorCode { _ = try await impatient.verify(payload: ["user": "stall"]) } == "function_failed")
            #expect(await code("huge") == "function_failed")
            #expect(await code("not-json") == "function_failed")
            #expect(await code("no-id") == "function_failed")
            #expect(await code("numeric-name") == "function_failed")
            // The function's own words reach the message, bounded.
            do {
                _ = try await provider.verify(payload: ["user": "refuse"])
                Issue.record("expected a refusal")
            } catch let e as TokenError {
                #expect(e.message == "no such user")
            }
        }
    }

    @Test func wrongSecretIsRefusedByTheFunction() async throws {
        try await Self.withFunction { _, function, transport in
            let wrong = try CustomFunctionProvider(
                configuration: .init(url: function.url, secret: Array(repeating: 7, count: 32)),
                transport: transport)
            #expect(await errorCode { _ = try await wrong.verify(payload: ["user": "ada"]) } == "function_refused")
        }
    }

    @Test func unreachableAndConfiguration() async throws {
        try await Self.withFunction { _, _, transport in
            // Port 9 (discard) on loopback: nothing listens there in the test environment.
            let down = try CustomFunctionProvider(
                configuration: .init(url: "http://127.0.0.1:9/auth", secret: Array(repeating: 1, count: 32)),
                transport: transport)
            #expect(await errorCode { _ = try await down.verify(payload: ["user": "ada"]) } == "function_failed")
            // The message (a client's) never names the address, nor the cause underneath (which
            // may name the host); `detail` (the operator's log) holds both.
            do {
                _ = try await down.verify(payload: ["user": "ada"])
                Issue.record("expected a failure")
            } catch let e as TokenError {
                #expect(e.message == "the custom function could not be reached")
                #expect(e.detail?.hasPrefix("POST http://127.0.0.1:9/auth could not be reached: ") == true, "\(e.detail ?? "no detail")")
            }
            let plainHTTP = CustomFunctionProvider.Configuration(url: "http://example.com/f", secret: Array(repeating: 1, count: 32))
            #expect(await errorCode { _ = try CustomFunctionProvider(configuration: plainHTTP, transport: transport) } == "invalid_configuration")
            let shortSecret = CustomFunctionProvider.Configuration(url: "https://example.com/f", secret: Array(repeating: 1, count: 31))
            #expect(await errorCode { _ = try CustomFunctionProvider(configuration: shortSecret, transport: transport) } == "invalid_configuration")
        }
    }
}
