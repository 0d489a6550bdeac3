#if canImport(FoundationEssentials)
    public import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    public import Foundation
#endif

/// The claims of a JWT as an ordered JSON object, with typed access to the registered claims
/// (RFC 7519 §4.1). Build one to sign; get one back from ``JWTVerifier/verify(_:)``.
///
/// ```swift
/// var claims = ClaimSet()
/// claims.subject = "42"
/// claims.expiresAt = TokenClock.system.now().addingTimeInterval(1800)
/// claims["role"] = "admin"
/// ```
public struct ClaimSet: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// Claims read from a verified token stay in the jansson tree (``JSONDocument``) until
    /// they are changed or ``object`` is asked for: the typed accessors and the subscript read
    /// single members without building the whole object (docs/performance.md).
    private enum Storage: Sendable {
        case object(JSONObject)
        case document(JSONDocument)
    }
    private var storage: Storage

    /// Every claim, in order.
    public var object: JSONObject {
        get {
            switch storage {
            case .object(let o): return o
            case .document(let d): return d.object()
            }
        }
        set { storage = .object(newValue) }
    }

    public init(_ object: JSONObject = JSONObject()) { storage = .object(object) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (k, v) in elements { object[k] = v }
        storage = .object(object)
    }
    /// Claims read lazily from a parsed payload object.
    init(document: JSONDocument) { storage = .document(document) }

    public subscript(name: String) -> JSONValue? {
        get {
            switch storage {
            case .object(let o): return o[name]
            case .document(let d): return d.exactMember(name).map(JSONDocument.value)
            }
        }
        set { object[name] = newValue }
    }

    private func string(_ name: String) -> String? {
        switch storage {
        case .object(let o): return o[name]?.stringValue
        case .document(let d): return d.exactMember(name).flatMap(JSONDocument.string)
        }
    }

    public var issuer: String? {
        get { string("iss") }
        set { object["iss"] = newValue.map(JSONValue.string) }
    }
    public var subject: String? {
        get { string("sub") }
        set { object["sub"] = newValue.map(JSONValue.string) }
    }
    public var jwtID: String? {
        get { string("jti") }
        set { object["jti"] = newValue.map(JSONValue.string) }
    }
    /// `aud` as a list, whether the token carries a string or an array.
    public var audience: [String] {
        get {
            switch self["aud"] {
            case .string(let s)?: return [s]
            case .array(let a)?: return a.compactMap(\.stringValue)
            default: return []
            }
        }
        set { object["aud"] = newValue.isEmpty ? nil : (newValue.count == 1 ? .string(newValue[0]) : .array(newValue.map(JSONValue.string))) }
    }
    public var expiresAt: Date? {
        get { date("exp") }
        set { setDate("exp", newValue) }
    }
    public var notBefore: Date? {
        get { date("nbf") }
        set { setDate("nbf", newValue) }
    }
    public var issuedAt: Date? {
        get { date("iat") }
        set { setDate("iat", newValue) }
    }

    private func date(_ name: String) -> Date? { self[name]?.numberValue.map { Date(timeIntervalSince1970: $0) } }
    private mutating func setDate(_ name: String, _ date: Date?) {
        object[name] = date.map { .int(Int64($0.timeIntervalSince1970.rounded(.down))) }
    }

    /// Compact JSON text of the claims.
    public var jsonString: String { JSONValue.object(object).jsonString }

    public static func == (a: ClaimSet, b: ClaimSet) -> Bool { a.object == b.object }
    public func hash(into hasher: inout Hasher) { hasher.combine(object) }
}
