import Foundation

/// Decodes a `Decodable` claims type straight from the parsed token (``JSONTape``): no second parse through
/// Foundation's JSON. `Date` reads a NumericDate (seconds since 1970); `URL` reads a string.
struct ClaimsDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from doc: JSONTape) throws -> T {
        do {
            return try TapeDecoding(node: JSONTape.root, path: [], owner: doc).decodeValue(T.self)
        } catch let e as DecodingError {
            let (path, reason): ([CodingKey], String)
            switch e {
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
                (path, reason) = (c.codingPath, c.debugDescription)
            @unknown default:
                (path, reason) = ([], "cannot decode")
            }
            let claim = path.first?.stringValue
            if case .keyNotFound(let key, _) = e {
                let full = (path + [key]).map(\.stringValue).joined(separator: ".")
                throw TokenError(.missingClaim, "token has no \"\(full)\", which \(T.self) requires", claim: path.first?.stringValue ?? key.stringValue)
            }
            let full = path.map(\.stringValue).joined(separator: ".")
            throw TokenError(.invalidClaim, "claim \"\(full)\" cannot be decoded as \(T.self): \(reason)", claim: claim)
        }
    }
}

private struct TapeDecoding: Decoder, SingleValueDecodingContainer {
    let node: Int
    let codingPath: [CodingKey]
    let owner: JSONTape
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: Int, path: [CodingKey], owner: JSONTape) {
        self.node = node
        self.codingPath = path
        self.owner = owner
    }

    var type: JSONTape.Kind { owner.kind(node) }
    var typeName: String { owner.value(node).typeName }

    func mismatch<T>(_ t: T.Type) -> DecodingError {
        .typeMismatch(t, .init(codingPath: codingPath, debugDescription: "expected \(t), found a \(typeName)"))
    }

    func container<Key: CodingKey>(keyedBy: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard type == .object else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(Keyed<Key>(node: node, codingPath: codingPath, owner: owner))
    }
    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        guard type == .array else { throw mismatch([Any].self) }
        return Unkeyed(node: node, codingPath: codingPath, owner: owner)
    }
    func singleValueContainer() throws -> SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { type == .null }
    func decode(_: Bool.Type) throws -> Bool {
        switch type {
        case .true: return true
        case .false: return false
        default: throw mismatch(Bool.self)
        }
    }
    func decode(_: String.Type) throws -> String {
        guard let s = owner.string(node) else { throw mismatch(String.self) }
        return s
    }
    func decode(_: Double.Type) throws -> Double {
        switch type {
        case .int, .double: return owner.double(node)!
        default: throw mismatch(Double.self)
        }
    }
    func decode(_: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func integer<T: FixedWidthInteger>(_ t: T.Type) throws -> T {
        guard let i = owner.int(node) else {
            if type == .double, let v = T(exactly: owner.double(node)!) { return v }
            throw mismatch(t)
        }
        guard let v = T(exactly: i) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(i) does not fit \(t)"))
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
            guard type == .int || type == .double else {
                throw DecodingError.typeMismatch(Date.self, .init(codingPath: codingPath, debugDescription: "expected a NumericDate (seconds since 1970), found a \(typeName)"))
            }
            return Date(timeIntervalSince1970: try decode(Double.self)) as! T
        }
        if t == URL.self {
            let s = try decode(String.self)
            guard let url = URL(string: s) else { throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "not a URL")) }
            return url as! T
        }
        if t == JSONValue.self { return owner.value(node) as! T }
        return try T(from: self)
    }
}

private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let node: Int
    let codingPath: [CodingKey]
    let owner: JSONTape

    var allKeys: [Key] {
        owner.members(node).compactMap { Key(stringValue: owner.string($0.key)!) }
    }
    func contains(_ key: Key) -> Bool { owner.member(key.stringValue, in: node) != nil }
    func child(_ key: Key) throws -> TapeDecoding {
        guard let c = owner.member(key.stringValue, in: node) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
        }
        return TapeDecoding(node: c, path: codingPath + [key], owner: owner)
    }
    func decodeNil(forKey key: Key) throws -> Bool {
        guard let c = owner.member(key.stringValue, in: node) else { return true }
        return owner.kind(c) == .null
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
    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer { try child(key).unkeyedContainer() }
    func superDecoder() throws -> Decoder { TapeDecoding(node: node, path: codingPath, owner: owner) }
    func superDecoder(forKey key: Key) throws -> Decoder { try child(key) }
}

private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(_ i: Int) { intValue = i }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct Unkeyed: UnkeyedDecodingContainer {
    let node: Int
    let codingPath: [CodingKey]
    let owner: JSONTape
    var currentIndex = 0
    /// Node of the element at `currentIndex`.
    var position: Int
    var count: Int? { owner.count(node) }
    var isAtEnd: Bool { currentIndex >= owner.count(node) }

    init(node: Int, codingPath: [CodingKey], owner: JSONTape) {
        self.node = node
        self.codingPath = codingPath
        self.owner = owner
        self.position = node + 1
    }

    mutating func next() throws -> TapeDecoding {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "array has no element \(currentIndex)"))
        }
        let d = TapeDecoding(node: position, path: codingPath + [IndexKey(currentIndex)], owner: owner)
        currentIndex += 1
        position = owner.next(position)
        return d
    }
    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if owner.kind(position) == .null { currentIndex += 1; position = owner.next(position); return true }
        return false
    }
    mutating func decode<T: Decodable>(_ t: T.Type) throws -> T { try next().decodeValue(t) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: NestedKey.self)
    }
    mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> Decoder { try next() }
}
