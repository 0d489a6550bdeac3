import Foundation

/// The claims of a JWT as an ordered JSON object, with typed access to the registered claims
/// (RFC 7519 §4.1). Build one to sign; get one back from ``JWTVerifier/verify(_:)``.
///
/// ```swift
/// var claims = ClaimSet()
/// claims.subject = "42"
/// claims.expiresAt = Date().addingTimeInterval(1800)
/// claims["role"] = "admin"
/// ```
public struct ClaimSet: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// Every claim, in order.
    public var object: JSONObject

    public init(_ object: JSONObject = JSONObject()) { self.object = object }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        object = JSONObject()
        for (k, v) in elements { object[k] = v }
    }

    public subscript(name: String) -> JSONValue? {
        get { object[name] }
        set { object[name] = newValue }
    }

    public var issuer: String? { get { object["iss"]?.stringValue } set { object["iss"] = newValue.map(JSONValue.string) } }
    public var subject: String? { get { object["sub"]?.stringValue } set { object["sub"] = newValue.map(JSONValue.string) } }
    public var jwtID: String? { get { object["jti"]?.stringValue } set { object["jti"] = newValue.map(JSONValue.string) } }
    /// `aud` as a list, whether the token carries a string or an array.
    public var audience: [String] {
        get {
            switch object["aud"] {
            case .string(let s)?: return [s]
            case .array(let a)?: return a.compactMap(\.stringValue)
            default: return []
            }
        }
        set { object["aud"] = newValue.isEmpty ? nil : (newValue.count == 1 ? .string(newValue[0]) : .array(newValue.map(JSONValue.string))) }
    }
    public var expiresAt: Date? { get { date("exp") } set { setDate("exp", newValue) } }
    public var notBefore: Date? { get { date("nbf") } set { setDate("nbf", newValue) } }
    public var issuedAt: Date? { get { date("iat") } set { setDate("iat", newValue) } }

    private func date(_ name: String) -> Date? { object[name]?.numberValue.map { Date(timeIntervalSince1970: $0) } }
    private mutating func setDate(_ name: String, _ date: Date?) {
        object[name] = date.map { .int(Int64($0.timeIntervalSince1970.rounded(.down))) }
    }

    /// Compact JSON text of the claims.
    public var jsonString: String { JSONValue.object(object).jsonString }
}
