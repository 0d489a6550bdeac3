#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif
internal import CJansson

/// Decodes a `Decodable` claims type straight from the jansson tree: no second parse through
/// Foundation's JSON. `Date` reads a NumericDate (seconds since 1970); `URL` reads a string.
struct ClaimsDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from doc: JSONDocument) throws -> T {
        do {
            return try JanssonDecoding(node: doc.root, path: [], owner: doc).decodeValue(T.self)
        } catch let e as DecodingError {
            let (path, reason): ([any CodingKey], String)
            switch e {
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
                (path, reason) = (c.codingPath, c.debugDescription)
            @unknown default:
                (path, reason) = ([], "cannot decode")
            }
            let claim = path.first?.stringValue
            if case .keyNotFound(let key, _) = e {
                let full = (path + [key]).map(\.stringValue).joined(separator: ".")
                throw TokenError(
                    .missingClaim, "token has no \"\(full)\", which \(T.self) requires", claim: path.first?.stringValue ?? key.stringValue)
            }
            let full = path.map(\.stringValue).joined(separator: ".")
            throw TokenError(.invalidClaim, "claim \"\(full)\" cannot be decoded as \(T.self): \(reason)", claim: claim)
        }
    }
}

private struct JanssonDecoding: Decoder, SingleValueDecodingContainer {
    let node: UnsafeMutablePointer<json_t>
    let codingPath: [any CodingKey]
    let owner: JSONDocument
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: UnsafeMutablePointer<json_t>, path: [any CodingKey], owner: JSONDocument) {
        self.node = node
        self.codingPath = path
        self.owner = owner
    }

    var type: UInt32 { UInt32(JSONDocument.type(node)) }
    var typeName: String { JSONDocument.value(node).typeName }

    func mismatch<T>(_ t: T.Type) -> DecodingError {
        .typeMismatch(t, .init(codingPath: codingPath, debugDescription: "expected \(t), found a \(typeName)"))
    }

    func container<Key: CodingKey>(keyedBy: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard type == JSON_OBJECT.rawValue else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(Keyed<Key>(node: node, codingPath: codingPath, owner: owner))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard type == JSON_ARRAY.rawValue else { throw mismatch([Any].self) }
        return Unkeyed(node: node, codingPath: codingPath, owner: owner)
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { type == JSON_NULL.rawValue }
    func decode(_: Bool.Type) throws -> Bool {
        switch type {
        case JSON_TRUE.rawValue: return true
        case JSON_FALSE.rawValue: return false
        default: throw mismatch(Bool.self)
        }
    }
    func decode(_: String.Type) throws -> String {
        guard let s = JSONDocument.string(node) else { throw mismatch(String.self) }
        return s
    }
    func decode(_: Double.Type) throws -> Double {
        switch type {
        case JSON_REAL.rawValue: return json_real_value(node)
        case JSON_INTEGER.rawValue: return Double(json_integer_value(node))
        default: throw mismatch(Double.self)
        }
    }
    func decode(_: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func integer<T: FixedWidthInteger>(_ t: T.Type) throws -> T {
        guard type == JSON_INTEGER.rawValue else {
            if type == JSON_REAL.rawValue, let v = T(exactly: json_real_value(node)) { return v }
            throw mismatch(t)
        }
        guard let v = T(exactly: Int64(json_integer_value(node))) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(json_integer_value(node)) does not fit \(t)"))
        }
        return v
    }
    func decode(_ t: Int.Type) throws -> Int { try integer(t) }
    func decode(_ t: Int8.Type) throws -> Int8 { try integer(t) }
    func decode(_ t: Int16.Type) throws -> Int16 { try integer(t) }
    func decode(_ t: Int32.Type) throws -> Int32 { try integer(t) }
    func decode(_ t: Int64.Type) throws -> Int64 { try integer(t) }
    func decode(_ t: UInt.Type) throws -> UInt { try integer(t) }
    func decode(_ t: UInt8.Type) throws -> UInt8 { try integer(t) }
    func decode(_ t: UInt16.Type) throws -> UInt16 { try integer(t) }
    func decode(_ t: UInt32.Type) throws -> UInt32 { try integer(t) }
    func decode(_ t: UInt64.Type) throws -> UInt64 { try integer(t) }
    func decode<T: Decodable>(_ t: T.Type) throws -> T { try decodeValue(t) }

    func decodeValue<T: Decodable>(_ t: T.Type) throws -> T {
        if t == Date.self {
            guard type == JSON_INTEGER.rawValue || type == JSON_REAL.rawValue else {
                throw DecodingError.typeMismatch(
                    Date.self, .init(codingPath: codingPath, debugDescription: "expected a NumericDate (seconds since 1970), found a \(typeName)"))
            }
            return Date(timeIntervalSince1970: try decode(Double.self)) as! T
        }
        if t == URL.self {
            let s = try decode(String.self)
            guard let url = URL(string: s) else { throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "not a URL")) }
            return url as! T
        }
        if t == JSONValue.self { return JSONDocument.value(node) as! T }
        return try T(from: self)
    }
}

private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let node: UnsafeMutablePointer<json_t>
    let codingPath: [any CodingKey]
    let owner: JSONDocument

    var allKeys: [Key] {
        var keys: [Key] = []
        var iter = json_object_iter(node)
        while let it = iter {
            if let k = Key(stringValue: String(cString: ctk_json_object_iter_key(it))) { keys.append(k) }
            iter = json_object_iter_next(node, it)
        }
        return keys
    }
    func contains(_ key: Key) -> Bool { json_object_get(node, key.stringValue) != nil }
    func child(_ key: Key) throws -> JanssonDecoding {
        guard let c = json_object_get(node, key.stringValue) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
        }
        return JanssonDecoding(node: c, path: codingPath + [key], owner: owner)
    }
    func decodeNil(forKey key: Key) throws -> Bool {
        guard let c = json_object_get(node, key.stringValue) else { return true }
        return JSONDocument.type(c) == Int32(JSON_NULL.rawValue)
    }
    func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decode(Bool.self) }
    func decode(_: String.Type, forKey key: Key) throws -> String { try child(key).decode(String.self) }
    func decode(_: Double.Type, forKey key: Key) throws -> Double { try child(key).decode(Double.self) }
    func decode(_: Float.Type, forKey key: Key) throws -> Float { try child(key).decode(Float.self) }
    func decode(_ t: Int.Type, forKey key: Key) throws -> Int { try child(key).integer(t) }
    func decode(_ t: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).integer(t) }
    func decode(_ t: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).integer(t) }
    func decode(_ t: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).integer(t) }
    func decode(_ t: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).integer(t) }
    func decode(_ t: UInt.Type, forKey key: Key) throws -> UInt { try child(key).integer(t) }
    func decode(_ t: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).integer(t) }
    func decode(_ t: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).integer(t) }
    func decode(_ t: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).integer(t) }
    func decode(_ t: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).integer(t) }
    func decode<T: Decodable>(_ t: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(t) }
    func nestedContainer<NestedKey: CodingKey>(keyedBy: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: NestedKey.self)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try child(key).unkeyedContainer() }
    func superDecoder() throws -> any Decoder { JanssonDecoding(node: node, path: codingPath, owner: owner) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(_ i: Int) { intValue = i }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct Unkeyed: UnkeyedDecodingContainer {
    let node: UnsafeMutablePointer<json_t>
    let codingPath: [any CodingKey]
    let owner: JSONDocument
    var currentIndex = 0
    var count: Int? { json_array_size(node) }
    var isAtEnd: Bool { currentIndex >= json_array_size(node) }

    init(node: UnsafeMutablePointer<json_t>, codingPath: [any CodingKey], owner: JSONDocument) {
        self.node = node
        self.codingPath = codingPath
        self.owner = owner
    }

    mutating func next() throws -> JanssonDecoding {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "array has no element \(currentIndex)"))
        }
        let d = JanssonDecoding(node: json_array_get(node, currentIndex), path: codingPath + [IndexKey(currentIndex)], owner: owner)
        currentIndex += 1
        return d
    }
    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if JSONDocument.type(json_array_get(node, currentIndex)) == Int32(JSON_NULL.rawValue) { currentIndex += 1; return true }
        return false
    }
    mutating func decode<T: Decodable>(_ t: T.Type) throws -> T { try next().decodeValue(t) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: NestedKey.self)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}
