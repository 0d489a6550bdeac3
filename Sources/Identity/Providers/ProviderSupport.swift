import Foundation
import JOSE

/// What an authorization-code exchange returns: the verified identity and the provider's tokens.
public struct CodeExchangeResult: Sendable {
    public var identity: Identity
    /// The verified id_token the provider returned.
    public var idToken: String
    public var accessToken: String?
    /// Apple's refresh token is what ``AppleProvider/revoke(token:tokenTypeHint:clientID:)`` needs on account deletion.
    public var refreshToken: String?
    public var expiresIn: Int64?
    public var scope: String?
}

enum ProviderHTTP {
    /// application/x-www-form-urlencoded (WHATWG URL §5.2): unreserved bytes kept, space as "+".
    static func formEncode(_ fields: [(String, String)]) -> [UInt8] {
        Array(fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&").utf8)
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "*"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            case UInt8(ascii: " "): out += "+"
            default: out += "%" + Hex.encode(CollectionOfOne(b), uppercase: true)
            }
        }
        return out
    }

    /// `base?name=value&…`, keeping any query `base` already has.
    static func url(_ base: String, path: String, query: [(String, String)]) -> String {
        var b = base
        while b.hasSuffix("/") { b.removeLast() }
        let q = query.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
        return b + path + (q.isEmpty ? "" : (b.contains("?") ? "&" : "?") + q)
    }

    static func postForm(_ transport: any HTTPTransport, url: String, fields: [(String, String)], timeout: TimeInterval) async throws -> HTTPResponse
    {
        try await transport.send(
            HTTPRequest(
                method: "POST", url: url,
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                body: formEncode(fields), timeout: timeout, maxResponseBytes: 256 * 1024))
    }

    /// The body as a JSON object, or `provider_unavailable` naming the endpoint.
    static func jsonObject(_ response: HTTPResponse, from what: String) throws -> JSONObject {
        // RFC 8259 §8.1: JSON between systems is UTF-8; invalid bytes are refused, not replaced by U+FFFD.
        guard let text = String(validating: response.body, as: UTF8.self),
            let value = try? JSONValue(parsing: text, limits: JSONLimits(maxBytes: 256 * 1024, maxDepth: 16, maxTopLevelMembers: 256)),
            let object = value.objectValue
        else {
            throw TokenError(.providerUnavailable, "\(what) answered HTTP \(response.status) with a body that is not a JSON object")
        }
        return object
    }

    /// RFC 6749 §5.2 error responses (Google, Apple) → our codes. 5xx and 429 mean the provider is unavailable.
    /// - Parameter secrets: what we sent that must never appear in a message (client secret), even
    ///   when the provider echoes it back.
    static func oauthError(_ response: HTTPResponse, from what: String, secrets: [String]) -> TokenError {
        if response.status >= 500 || response.status == 429 {
            return TokenError(.providerUnavailable, "\(what) answered HTTP \(response.status)")
        }
        guard let o = try? jsonObject(response, from: what), let error = o["error"]?.stringValue else {
            return TokenError(.providerUnavailable, "\(what) answered HTTP \(response.status) without an OAuth error")
        }
        // Matched as sent; shown (only when unknown) as a word with the secrets taken out.
        let safe = String(error.prefix(64).filter { $0.isLetter || $0.isNumber || $0 == "_" })
        let description = (o["error_description"]?.stringValue).map { ": " + sanitized($0, redacting: secrets) } ?? ""
        switch safe {
        case "invalid_grant": return TokenError(.invalidGrant, "\(what) refused the authorization code (invalid_grant\(description))")
        case "redirect_uri_mismatch":
            return TokenError(.redirectURIMismatch, "\(what) says the redirect URI does not match (redirect_uri_mismatch\(description))")
        case "invalid_client", "unauthorized_client":
            return TokenError(.invalidClient, "\(what) refused the client credentials (\(safe)\(description))")
        default:
            let shown = shownText(error, redacting: secrets, limit: 64) {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_")
            }
            return TokenError(.providerError, "\(what) answered HTTP \(response.status) with error \(shown)\(description)")
        }
    }

    /// Provider text for messages: one line of printable ASCII, at most `limit` characters, with
    /// the secrets we sent taken out (``shownText(_:redacting:limit:keeping:)``).
    static func sanitized(_ s: String, redacting secrets: [String], limit: Int = 160) -> String {
        shownText(s, redacting: secrets, limit: limit) { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f }
    }

    /// Provider text as a message may show it, never with a secret we sent (a provider may echo our
    /// request, or an attacker answering in its place may try to smuggle a secret into our logs):
    /// 1. only the characters `keep` allows are kept, first, so that nothing dropped later can
    ///    join two halves of a secret into a whole one;
    /// 2. each secret is replaced by "[redacted]": as sent, form/URL-encoded (as in our request)
    ///    and filtered like the text, case-insensitively;
    /// 3. the text is cut to `limit` characters;
    /// 4. text that still holds 16 consecutive characters of a secret (a part of one, or one
    ///    spelled some other way) is withheld as a whole.
    static func shownText(_ s: String, redacting secrets: [String], limit: Int, keeping keep: (Unicode.Scalar) -> Bool) -> String {
        func filtered(_ t: String) -> String { String(String.UnicodeScalarView(t.unicodeScalars.filter(keep))) }
        var text = filtered(s)
        for secret in secrets where !secret.isEmpty {
            for form in Set([secret, escape(secret), filtered(secret)]) where !form.isEmpty {
                text = text.replacingOccurrences(of: form, with: "[redacted]", options: [.caseInsensitive, .literal])
            }
        }
        text = String(text.prefix(limit))
        let lower = Array(text.lowercased().utf8)
        for secret in secrets {
            for form in Set([secret, filtered(secret)]) {
                let f = Array(form.lowercased().utf8)
                guard f.count >= 16, lower.count >= 16 else { continue }
                let windows = Set((0...(f.count - 16)).map { f[$0..<($0 + 16)] })
                if (0...(lower.count - 16)).contains(where: { windows.contains(lower[$0..<($0 + 16)]) }) { return "[withheld]" }
            }
        }
        return text
    }
}

/// An RFC 6749 §5.1 / OIDC Core §3.1.3.3 token response, type-checked. A member present with the
/// wrong type (`expires_in` as a string, `id_token` as a number) means the response is not what
/// the protocol promises: `provider_unavailable`, never a value silently dropped. A 200 carrying an
/// RFC 6749 §5.2 `error` is that error (some servers answer errors with 200), never a sign-in.
struct TokenResponse {
    var idToken: String
    var accessToken: String?
    var refreshToken: String?
    var expiresIn: Int64?
    var scope: String?

    /// - Parameter noIDToken: the message when the response has no id_token.
    /// Any status but 200, and a 200 with an `error` member, is ``ProviderHTTP/oauthError(_:from:secrets:)``.
    init(_ response: HTTPResponse, from what: String, secrets: [String], noIDToken: String) throws {
        guard response.status == 200 else { throw ProviderHTTP.oauthError(response, from: what, secrets: secrets) }
        let body = try ProviderHTTP.jsonObject(response, from: what)
        if body["error"] != nil { throw ProviderHTTP.oauthError(response, from: what, secrets: secrets) }
        func string(_ name: String) throws -> String? {
            switch body[name] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            case let v?: throw TokenError(.providerUnavailable, "\(what) sent \"\(name)\" as a \(v.typeName); expected a string")
            }
        }
        guard let idToken = try string("id_token") else { throw TokenError(.providerUnavailable, noIDToken) }
        self.idToken = idToken
        accessToken = try string("access_token")
        refreshToken = try string("refresh_token")
        scope = try string("scope")
        switch body["expires_in"] {
        case nil, .null?: expiresIn = nil
        case .int(let i)? where i >= 0: expiresIn = i
        case let v?:
            throw TokenError(
                .providerUnavailable,
                "\(what) sent \"expires_in\" as \(v.typeName == "number" ? "a negative or fractional number" : "a \(v.typeName)"); expected a non-negative integer"
            )
        }
    }
}

/// The checks every built-in provider's id_token gets: an RS256 signature with the provider's keys,
/// `iss`, `aud`, and `sub`/`exp`/`iat` present and valid at the configured clock, then the nonce.
struct OIDCCheck {
    var keys: KeySource
    var issuers: Set<String>
    var audiences: Set<String>
    var leeway: TimeInterval
    var clock: TokenClock

    /// The verified claims. - Parameter nonce: the raw nonce of the sign-in; `nil` skips the check.
    func verify(_ token: String, nonce: String?) async throws -> ClaimSet {
        let options = VerifierOptions(
            issuers: issuers, audiences: audiences, requiredClaims: ["sub", "exp", "iat"],
            algorithms: [.rs256], leeway: leeway, clock: clock)
        let claims = try await keys.verify(token, options: options).claims
        try Self.checkNonce(claims, expected: nonce)
        return claims
    }

    /// OIDC nonce: equal to the raw nonce, or to its SHA-256 as lower-case hex (what Apple's and
    /// Facebook's iOS SDKs put in the token when the app passes the hashed nonce).
    static func checkNonce(_ claims: ClaimSet, expected: String?) throws {
        guard let expected else { return }
        guard let nonce = claims["nonce"]?.stringValue else {
            throw TokenError(.invalidNonce, "token has no \"nonce\"; one was expected", claim: "nonce")
        }
        let hashed = Hex.encode(SHA2.sha256(Array(expected.utf8)))
        let found = Array(nonce.utf8)
        guard ConstantTime.equals(found, Array(expected.utf8)) || ConstantTime.equals(Array(nonce.lowercased().utf8), Array(hashed.utf8)) else {
            throw TokenError(.invalidNonce, "token \"nonce\" matches neither the expected nonce nor its SHA-256", claim: "nonce")
        }
    }
}

func checkClientIDs(_ ids: Set<String>, what: String) throws {
    guard !ids.isEmpty else { throw TokenError(.invalidConfiguration, "no \(what) configured; at least one is required") }
}

extension KeySource {
    /// `keys` when given, else the provider's published JWKS at `url`, fetched through `transport`
    /// within `timeout` (every built-in provider's default).
    static func given(_ keys: KeySource?, orJWKS url: String, transport: any HTTPTransport, clock: TokenClock, timeout: TimeInterval) throws
        -> KeySource
    {
        try keys ?? .remote(RemoteJWKS(url: url, transport: transport, clock: clock, policy: .init(timeout: timeout)))
    }
}
