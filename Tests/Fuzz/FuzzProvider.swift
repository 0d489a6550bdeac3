import Dispatch
import Foundation
@testable import Identity
@testable import JOSE

// libFuzzer target "provider": hostile provider responses. A scripted HTTPTransport
// answers every request the Identity module makes with bytes taken from the fuzz input, for:
//
//   scenario 0  RemoteJWKS: keys(), again after the clock moves (cache, ETag/304, stale), after
//               an unknown kid, then KeySource.remote(_).verify(_:) of a valid id_token
//   scenario 1  GoogleProvider.exchange(code:): token endpoint, then the id_token against the JWKS
//   scenario 2  AppleProvider.exchange(code:nonce:): ES256 client-secret JWT, token endpoint, id_token
//   scenario 3  FacebookProvider.verify(accessToken:): Graph debug_token, then /me
//   scenario 4  AppleProvider.revoke(token:): revoke endpoint
//
// Input layout (all of it optional; a short input just ends early):
//
//   byte 0         scenario = byte % 5; option bits = byte / 5:
//                    bit 0  Google: require hosted domain "example.com"; Apple: expect nonce "abc"
//                    bit 1  JWKS: the clock moves past max-age between the first two fetches
//                           (else 30 s, inside any freshness)
//   then responses, separated by the 10 bytes "\n--next--\n"; the n-th request gets the n-th response:
//     byte 0       status = [200 ×8, 304, 400, 401, 403, 404, 429, 500, (transport throws)][byte & 15]
//     byte 1       headers: Cache-Control = [none, "max-age=300", "public, max-age=86400, must-revalidate",
//                  "no-store", "max-age=0", "max-age=-60", "max-age=\"120\"", "max-age=1e309"][byte & 7],
//                  ETag = [none, "\"v1\"", "W/\"v2\"", "\"\""][(byte >> 3) & 3],
//                  Age = [none, "30", "100000", "-5"][(byte >> 5) & 3]
//     the rest     the body, after these substitutions:
//                    $SECRET   the scenario's configured secret (Google client secret, Facebook app
//                              secret, Apple: the client-secret JWT of the request being answered)
//                    $ECHO     the request's body (form fields, with the secret) or else its full URL
//                              (Facebook: the query holds the app token `app_id|app_secret`)
//                    $IDTOKEN  a valid id_token for the scenario (RS256, kid "rsa", FuzzKeys.rsa)
//   When the responses run out, a request for the JWKS URL gets the fixed JWKS (the public half of
//   FuzzKeys.rsa, kid "rsa"); any other request gets HTTP 500.
//
// Invariants beyond crashes and leaks: every error thrown is a TokenError, and no error (message,
// claim, description) contains 16 consecutive characters of a configured secret (also compared
// lower-cased, letters and digits only): the Google client secret, the Facebook app secret, the
// Apple client-secret JWT's signature or the Apple key's "d".
// Seeds: TestVectors/fuzz/provider/ (TestVectors/fuzz/make_provider_seeds.py); dictionary:
// TestVectors/fuzz/provider.dict.

enum ProviderFuzz {
    static let separator = Array("\n--next--\n".utf8)
    static let statuses = [200, 200, 200, 200, 200, 200, 200, 200, 304, 400, 401, 403, 404, 429, 500, -1]
    static let cacheControls: [String?] = [
        nil, "max-age=300", "public, max-age=86400, must-revalidate", "no-store", "max-age=0",
        "max-age=-60", "max-age=\"120\"", "max-age=1e309",
    ]
    static let etags: [String?] = [nil, "\"v1\"", "W/\"v2\"", "\"\""]
    static let ages: [String?] = [nil, "30", "100000", "-5"]

    static let googleClientID = "fuzz-client.apps.googleusercontent.com"
    static let googleSecret = "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23456789"
    static let appleClientID = "com.example.fuzz"
    static let facebookAppID = "1000000000000001"
    static let facebookSecret = "f00dfacefeedbeef0123456789abcdef"
    /// The Sign in with Apple key: the P-256 key of TestVectors/fuzz/keys/p256.pem as a JWK (fixed, test-only).
    static let appleKeyJSON =
        #"{"kty":"EC","crv":"P-256","x":"nGdqK6iWBswhDAxbbrFp7sLFWHWXG_T3TK07xRRcOW4","y":"n7LD8RsK1zD6gKI1tSJmtwwqLPdi_MxXsgeSDQgk_lQ","d":"PqWgqX4pxzXHn2ZndpMlehSz3Qk_kXT7_gVIc2Aecpc"}"#
    static let appleKeyD = "PqWgqX4pxzXHn2ZndpMlehSz3Qk_kXT7_gVIc2Aecpc"

    static let jwksURL = "https://keys.fuzz.example/oauth2/v3/certs"
    static let googleTokenURL = "https://oauth2.fuzz.example/token"
    static let appleTokenURL = "https://appleid.fuzz.example/auth/token"
    static let appleRevokeURL = "https://appleid.fuzz.example/auth/revoke"
    static let graphURL = "https://graph.fuzz.example/v21.0"

    /// The public half of FuzzKeys.rsa, kid "rsa": what the JWKS URL serves when the input has no response left.
    nonisolated(unsafe) static var defaultJWKS: [UInt8] = []
    nonisolated(unsafe) static var appleKey: JWK! = nil
    nonisolated(unsafe) static var idTokens: [Int: [UInt8]] = [:]
    nonisolated(unsafe) static var ready = false

    static func setUp() {
        do {
            var rsa = try JWK(pem: FuzzKeys.rsa)
            rsa.keyID = "rsa"
            defaultJWKS = Array(try JWKSet(keys: [rsa.publicKey]).jsonString().utf8)
            appleKey = try JWK(json: appleKeyJSON)
            let now = Fuzz.now
            let google: ClaimSet = [
                "iss": "https://accounts.google.com", "azp": .string(googleClientID), "aud": .string(googleClientID),
                "sub": "110000000000000000001", "email": "fuzz@example.com", "email_verified": true,
                "hd": "example.com", "name": "Fuzz", "picture": "https://example.com/p.png", "locale": "en",
                "iat": .int(now - 60), "exp": .int(now + 3600),
            ]
            // nonce: SHA-256("abc") as hex (FIPS 180-2 B.1), the iOS hashed-nonce form.
            let apple: ClaimSet = [
                "iss": "https://appleid.apple.com", "aud": .string(appleClientID), "sub": "001234.fuzz.0042",
                "email": "fuzz@privaterelay.appleid.com", "email_verified": "true", "is_private_email": "true",
                "real_user_status": 2, "nonce": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                "iat": .int(now - 60), "exp": .int(now + 3600),
            ]
            let signer = try JWTSigner(key: rsa, algorithm: .rs256, keyID: "rsa")
            idTokens = [0: Array(try signer.sign(google).utf8), 1: Array(try signer.sign(google).utf8), 2: Array(try signer.sign(apple).utf8)]
            ready = true
        } catch {
            fatalError("provider fuzz set-up failed: \(error)")
        }
    }

    struct Scripted: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]
    }

    /// Splits the input into (scenario byte, responses).
    static func parse(_ bytes: [UInt8]) -> (UInt8, [Scripted]) {
        guard let first = bytes.first else { return (0, []) }
        var responses: [Scripted] = []
        for record in split(Array(bytes.dropFirst()), on: separator).prefix(8) {
            let status = statuses[Int((record.first ?? 0) & 15)]
            let h = record.count > 1 ? record[1] : 0
            var headers: [(name: String, value: String)] = []
            if let cc = cacheControls[Int(h & 7)] { headers.append(("Cache-Control", cc)) }
            if let etag = etags[Int((h >> 3) & 3)] { headers.append(("ETag", etag)) }
            if let age = ages[Int((h >> 5) & 3)] { headers.append(("Age", age)) }
            headers.append(("Content-Type", h & 0x80 != 0 ? "text/html" : "application/json; charset=utf-8"))
            responses.append(Scripted(status: status, headers: headers, body: Array(record.dropFirst(2))))
        }
        return (first, responses)
    }

    static func split(_ bytes: [UInt8], on sep: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var start = 0, i = 0
        while i + sep.count <= bytes.count {
            if bytes[i] == sep[0] && bytes[i..<(i + sep.count)].elementsEqual(sep) {
                out.append(Array(bytes[start..<i]))
                i += sep.count
                start = i
            } else {
                i += 1
            }
        }
        out.append(Array(bytes[start...]))
        return out
    }

    static func replacing(_ pattern: String, with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        let p = Array(pattern.utf8)
        guard bytes.count >= p.count else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if i + p.count <= bytes.count && bytes[i] == p[0] && bytes[i..<(i + p.count)].elementsEqual(p) {
                out += replacement
                i += p.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }
}

/// A clock the target moves by hand.
final class FuzzClock: @unchecked Sendable {
    private let lock = NSLock()
    private var seconds = Double(Fuzz.now)
    func advance(_ by: Double) { lock.withLock { seconds += by } }
    var clock: TokenClock { TokenClock { [self] in Date(timeIntervalSince1970: lock.withLock { seconds }) } }
}

/// Answers the n-th request with the n-th scripted response, substituting the placeholders.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var responses: [ProviderFuzz.Scripted]
    private let secret: String
    private let idToken: [UInt8]
    /// Secrets seen in requests (Apple's client-secret JWTs), checked against error messages.
    private(set) var requestSecrets: [String] = []

    init(responses: [ProviderFuzz.Scripted], secret: String, idToken: [UInt8]) {
        self.responses = responses
        self.secret = secret
        self.idToken = idToken
    }

    var seenSecrets: [String] { lock.withLock { requestSecrets } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let form = String(decoding: request.body ?? [], as: UTF8.self)
        // Apple: the client secret is a fresh JWT per request; the provider may echo that one.
        var secret = self.secret
        for field in form.split(separator: "&") where field.hasPrefix("client_secret=") {
            let value = String(field.dropFirst("client_secret=".count))
            if value != ProviderHTTP.escape(secret) {
                secret = value
                lock.withLock { requestSecrets.append(value) }
            }
        }
        let next: ProviderFuzz.Scripted? = lock.withLock { responses.isEmpty ? nil : responses.removeFirst() }
        guard let next else {
            if request.url == ProviderFuzz.jwksURL {
                return HTTPResponse(status: 200, headers: [("Cache-Control", "max-age=3600")], body: ProviderFuzz.defaultJWKS)
            }
            return HTTPResponse(status: 500, body: Array(#"{"error":"internal"}"#.utf8))
        }
        if next.status < 0 {
            throw TokenError(.providerUnavailable, "\(request.name ?? ProviderURL.shown(request.url)) could not be reached (scripted)")
        }
        var body = next.body
        body = ProviderFuzz.replacing("$SECRET", with: Array(secret.utf8), in: body)
        body = ProviderFuzz.replacing("$ECHO", with: Array((request.body.map { String(decoding: $0, as: UTF8.self) } ?? request.url).utf8), in: body)
        body = ProviderFuzz.replacing("$IDTOKEN", with: idToken, in: body)
        // The HTTPTransport contract: a response larger than the request allows is provider_unavailable.
        guard body.count <= request.maxResponseBytes else {
            throw TokenError(.providerUnavailable, "\(ProviderURL.shown(request.url)) sent a response larger than \(request.maxResponseBytes) bytes")
        }
        return HTTPResponse(status: next.status, headers: next.headers, body: body)
    }
}

struct ProviderTarget: Sendable {
    let scenario: Int
    let options: Int
    let transport: ScriptedTransport
    let clock = FuzzClock()
    let configuredSecrets: [String]

    init(_ bytes: [UInt8]) {
        let (first, responses) = ProviderFuzz.parse(bytes)
        scenario = Int(first % 5)
        options = Int(first / 5)
        let secret: String
        switch scenario {
        case 1: secret = ProviderFuzz.googleSecret
        case 3: secret = ProviderFuzz.facebookSecret
        case 0: secret = "not-a-secret-jwks-endpoint"  // a JWKS endpoint is told no secret
        default: secret = ProviderFuzz.googleSecret  // Apple: replaced by each request's client-secret JWT
        }
        configuredSecrets = [ProviderFuzz.googleSecret, ProviderFuzz.facebookSecret, ProviderFuzz.appleKeyD]
        transport = ScriptedTransport(responses: responses, secret: secret, idToken: ProviderFuzz.idTokens[min(scenario, 2)] ?? [])
    }

    /// Runs `body`; any error must be a TokenError that names no secret.
    func attempt<T>(_ what: String, _ body: () async throws -> T) async -> T? {
        do {
            return try await body()
        } catch let e as TokenError {
            check(e, what)
            return nil
        } catch {
            Fuzz.fail("\(what) threw \(type(of: error)), not a TokenError: \(error)")
        }
    }

    func check(_ e: TokenError, _ what: String) {
        var secrets = configuredSecrets
        // Apple's client secret: its signature is what must not leak (header and claims are public values).
        for jwt in transport.seenSecrets {
            if let sig = jwt.split(separator: ".").last { secrets.append(String(sig)) }
        }
        // Every 16-byte window of every secret, looked up for every window of the texts (bytes, not
        // Foundation string search: this runs for every input); also with both lower-cased and
        // reduced to letters and digits, so that a secret spelled apart does not slip through.
        var forbidden = Set<ArraySlice<UInt8>>()
        for secret in secrets { forbidden.formUnion(windows(Array(secret.utf8)) + windows(alphanumeric(secret))) }
        for text in [e.message, e.description, e.claim ?? ""] {
            if let hit = (windows(Array(text.utf8)) + windows(alphanumeric(text))).first(where: forbidden.contains) {
                Fuzz.fail("\(what): error \(e.code.rawValue) shows part of a secret (\"\(String(decoding: hit, as: UTF8.self))\"): \(text)")
            }
        }
    }

    func alphanumeric(_ s: String) -> [UInt8] {
        s.utf8.compactMap { c in
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return c
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c + 32
            default: return nil
            }
        }
    }

    func windows(_ u: [UInt8], _ n: Int = 16) -> [ArraySlice<UInt8>] {
        guard u.count >= n else { return [] }
        return (0...(u.count - n)).map { u[$0..<($0 + n)] }
    }

    func run() async {
        switch scenario {
        case 0: await jwks()
        case 1: await google()
        case 2: await apple()
        case 3: await facebook()
        default: await appleRevoke()
        }
    }

    func jwks() async {
        guard let remote = await attempt("RemoteJWKS.init", { try RemoteJWKS(url: ProviderFuzz.jwksURL, transport: transport, clock: clock.clock) })
        else {
            Fuzz.fail("RemoteJWKS refused a valid https URL")
        }
        if let keys = await attempt("RemoteJWKS.keys", { try await remote.keys() }) { checkKeys(keys) }
        clock.advance(options & 2 != 0 ? 90_000 : 30)
        if let keys = await attempt("RemoteJWKS.keys (again)", { try await remote.keys() }) { checkKeys(keys) }
        clock.advance(31)
        if let keys = await attempt("RemoteJWKS.keysAfterUnknownKey", { try await remote.keysAfterUnknownKey() }) { checkKeys(keys) }
        let token = String(decoding: ProviderFuzz.idTokens[0] ?? [], as: UTF8.self)
        let options = VerifierOptions(
            issuers: ["https://accounts.google.com"], audiences: [ProviderFuzz.googleClientID],
            requiredClaims: ["sub", "exp", "iat"], algorithms: [.rs256], clock: clock.clock)
        _ = await attempt("KeySource.verify", { try await KeySource.remote(remote).verify(token, options: options) })
        let fetches = await remote.fetchCount
        Fuzz.check(fetches <= 5, "RemoteJWKS fetched \(fetches) times for 4 calls")
    }

    func checkKeys(_ keys: JWKSet) {
        Fuzz.check(!keys.keys.isEmpty, "RemoteJWKS returned an empty key set")
        Fuzz.check(keys.keys.count <= JWKSet.Limits.default.maxKeys, "RemoteJWKS returned more keys than the limit")
        Fuzz.check(!keys.keys.contains { $0.keyType == .oct || $0.isPrivate }, "RemoteJWKS returned a secret or private key")
    }

    func google() async {
        var config = GoogleProvider.Configuration(
            clientIDs: [ProviderFuzz.googleClientID],
            hostedDomain: options & 1 != 0 ? "example.com" : nil, clientSecret: ProviderFuzz.googleSecret)
        config.jwksURL = ProviderFuzz.jwksURL
        config.tokenURL = ProviderFuzz.googleTokenURL
        config.clock = clock.clock
        guard let google = await attempt("GoogleProvider.init", { try GoogleProvider(configuration: config, transport: transport) }) else {
            Fuzz.fail("GoogleProvider refused its configuration")
        }
        if let result = await attempt("GoogleProvider.exchange", { try await google.exchange(code: "4/fuzz-code") }) {
            Fuzz.check(result.identity.provider == "google" && !result.identity.subject.isEmpty, "Google identity without provider or subject")
        }
    }

    func appleProvider() async -> AppleProvider {
        let key = AppleProvider.ClientSecretKey(teamID: "FUZZTEAM01", keyID: "FUZZKEY001", privateKey: ProviderFuzz.appleKey)
        var config = AppleProvider.Configuration(clientIDs: [ProviderFuzz.appleClientID], clientSecretKey: key)
        config.jwksURL = ProviderFuzz.jwksURL
        config.tokenURL = ProviderFuzz.appleTokenURL
        config.revokeURL = ProviderFuzz.appleRevokeURL
        config.clock = clock.clock
        guard let apple = await attempt("AppleProvider.init", { try AppleProvider(configuration: config, transport: transport) }) else {
            Fuzz.fail("AppleProvider refused its configuration")
        }
        return apple
    }

    func apple() async {
        let apple = await appleProvider()
        if let result = await attempt(
            "AppleProvider.exchange", { try await apple.exchange(code: "c.fuzz-code", nonce: options & 1 != 0 ? "abc" : nil) })
        {
            Fuzz.check(result.identity.provider == "apple" && !result.identity.subject.isEmpty, "Apple identity without provider or subject")
        }
    }

    func appleRevoke() async {
        let apple = await appleProvider()
        _ = await attempt("AppleProvider.revoke", { try await apple.revoke(token: "r.fuzz-refresh") })
    }

    func facebook() async {
        var config = FacebookProvider.Configuration(appID: ProviderFuzz.facebookAppID, appSecret: ProviderFuzz.facebookSecret)
        config.graphURL = ProviderFuzz.graphURL
        config.limitedLoginJWKSURL = ProviderFuzz.jwksURL
        config.clock = clock.clock
        guard let facebook = await attempt("FacebookProvider.init", { try FacebookProvider(configuration: config, transport: transport) }) else {
            Fuzz.fail("FacebookProvider refused its configuration")
        }
        if let identity = await attempt("FacebookProvider.verify", { try await facebook.verify(accessToken: "EAAFuzzUserAccessToken") }) {
            Fuzz.check(identity.provider == "facebook" && !identity.subject.isEmpty, "Facebook identity without provider or subject")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProvider(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    if !ProviderFuzz.ready { ProviderFuzz.setUp() }
    let target = ProviderTarget(Fuzz.bytes(data, size))
    // The providers are async; libFuzzer calls us on its own thread, which may block.
    let done = DispatchSemaphore(value: 0)
    Task {
        await target.run()
        done.signal()
    }
    done.wait()
    return 0
}
