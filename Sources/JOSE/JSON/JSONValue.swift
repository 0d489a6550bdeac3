/// A JSON value as TokenTool reads and writes it. Integers stay integers (every digit of an
/// `Int64` is kept, so a claim of 2^53+1 round-trips unchanged); object members keep their order.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var intValue: Int64? { if case .int(let i) = self { return i }; return nil }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o }; return nil }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// The value as a number (integers widen to `Double`).
    public var numberValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The JSON type's name, for messages: "string", "number", "object", …
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// Parses a JSON text (any value at the top level) with the default limits.
    public init(parsing text: String, limits: JSONLimits = .default) throws {
        self = try JSONDocument(parsing: Array(text.utf8), limits: limits, allowAnyTop: true).value()
    }

    /// Compact JSON text.
    public var jsonString: String { String(decoding: jsonBytes, as: UTF8.self) }

    /// Compact JSON as UTF-8 bytes.
    public var jsonBytes: [UInt8] {
        var w = JSONWriter()
        w.write(self)
        return w.bytes
    }

    /// Indented JSON text for people (two spaces, members in order).
    public func prettyString(indent: Int = 0) -> String {
        var w = JSONWriter(pretty: true)
        w.write(self, level: indent)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

/// A JSON object whose members keep their order. Lookup is linear: JOSE objects are small.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init() { members = [] }
    public init(_ members: [(key: String, value: JSONValue)]) { self.members = members }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = []
        for (k, v) in elements { self[k] = v }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    /// Gets a member; setting `nil` removes it, setting an existing key replaces it in place.
    public subscript(key: String) -> JSONValue? {
        get {
            for m in members where m.key == key { return m.value }
            return nil
        }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> { members.makeIterator() }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.members.count == b.members.count else { return false }
        for (x, y) in zip(a.members, b.members) where x.key != y.key || x.value != y.value { return false }
        return true
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for m in members { hasher.combine(m.key); hasher.combine(m.value) }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}

/// Bounds on JSON input, checked before jansson parses anything.
public struct JSONLimits: Sendable, Hashable {
    /// Largest accepted document, in bytes.
    public var maxBytes: Int
    /// Deepest accepted nesting of arrays and objects (the top level is depth 1).
    public var maxDepth: Int
    /// Most members accepted in the top-level object (claims in a JWT, members in a header).
    public var maxTopLevelMembers: Int

    public init(maxBytes: Int = 64 * 1024, maxDepth: Int = 32, maxTopLevelMembers: Int = 256) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxTopLevelMembers = maxTopLevelMembers
    }

    public static let `default` = JSONLimits()
}
