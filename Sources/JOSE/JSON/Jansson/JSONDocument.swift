internal import CJansson

/// Owns one jansson tree (`json_t`), parsed strictly: duplicate member names rejected, NUL in
/// strings rejected, size and depth bounded before jansson sees a byte. Immutable after init,
/// so concurrent reads are fine; `json_decref` runs exactly once, in `deinit`.
final class JSONDocument: @unchecked Sendable {
    let root: UnsafeMutablePointer<json_t>

    /// Parses `bytes`. The top level must be an object unless `allowAnyTop`.
    init(parsing bytes: [UInt8], limits: JSONLimits, allowAnyTop: Bool = false, what: String = "JSON") throws {
        root = try bytes.withUnsafeBufferPointer { try Self.parse($0, limits: limits, allowAnyTop: allowAnyTop, what: what) }
    }

    init(parsing buffer: UnsafeBufferPointer<UInt8>, limits: JSONLimits, what: String) throws {
        root = try Self.parse(buffer, limits: limits, allowAnyTop: false, what: what)
    }

    /// Takes over a reference the caller owns (from `json_*` constructors).
    init(takingOwnershipOf root: UnsafeMutablePointer<json_t>) { self.root = root }

    deinit { ctk_json_decref(root) }

    /// The jansson flags every header and claims set is parsed with (`RawJSONParse` uses them too).
    static var strictFlags: Int { Int(JSON_REJECT_DUPLICATES) }

    private static func parse(_ buffer: UnsafeBufferPointer<UInt8>, limits: JSONLimits, allowAnyTop: Bool, what: String) throws
        -> UnsafeMutablePointer<json_t>
    {
        if buffer.count > limits.maxBytes {
            throw TokenError.malformed("\(what) is \(buffer.count) bytes; the limit is \(limits.maxBytes)")
        }
        if let depth = exceededDepth(buffer, limit: limits.maxDepth) {
            throw TokenError.malformed("\(what) nests deeper than \(limits.maxDepth) levels (at least \(depth))")
        }
        var error = json_error_t()
        var flags = strictFlags
        if allowAnyTop { flags |= Int(JSON_DECODE_ANY) }
        let parsed = buffer.withMemoryRebound(to: CChar.self) { json_loadb($0.baseAddress, $0.count, flags, &error) }
        guard let root = parsed else {
            var text = withUnsafeBytes(of: &error.text) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            // jansson quotes the input around the error ("… near 'abc'"): never echo input bytes
            // (a token, or a hostile server's reply) into a message; the offset locates it.
            if let near = text.firstRange(of: " near ") { text = String(text[..<near.lowerBound]) }
            let reason = text.isEmpty ? "invalid JSON" : text
            throw TokenError.malformed("\(what) is not valid JSON: \(reason) at offset \(error.position)")
        }
        let isObject = ctk_json_typeof(root) == Int32(JSON_OBJECT.rawValue)
        if !allowAnyTop, !isObject {
            ctk_json_decref(root)
            throw TokenError.malformed("\(what) is not a JSON object")
        }
        // The member bound holds for any top-level object, also where other tops are allowed.
        if isObject, json_object_size(root) > limits.maxTopLevelMembers {
            let members = json_object_size(root)
            ctk_json_decref(root)
            throw TokenError.malformed("\(what) has \(members) members; the limit is \(limits.maxTopLevelMembers)")
        }
        return root
    }

    /// Scans brackets outside strings; returns the depth reached if it exceeds `limit`.
    /// String contents are skipped with memchr to the next quote (a quote after an odd number
    /// of backslashes is escaped and does not end the string).
    private static func exceededDepth(_ buffer: UnsafeBufferPointer<UInt8>, limit: Int) -> Int? {
        guard let base = buffer.baseAddress else { return nil }
        let n = buffer.count
        var depth = 0
        var i = 0
        while i < n {
            switch base[i] {
            case UInt8(ascii: "\""):
                var from = i + 1
                while true {
                    guard from < n, let hit = memchr(base + from, Int32(UInt8(ascii: "\"")), n - from) else { return nil }
                    let q = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    var backslashes = 0
                    while q - 1 - backslashes > i && base[q - 1 - backslashes] == UInt8(ascii: "\\") { backslashes += 1 }
                    if backslashes % 2 == 0 { i = q; break }
                    from = q + 1
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > limit { return depth }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
            i += 1
        }
        return nil
    }

    // MARK: reading

    func member(_ name: String) -> UnsafeMutablePointer<json_t>? { json_object_get(root, name) }

    /// Member lookup by the exact UTF-8 bytes of `name` (a NUL inside `name` does not cut it short).
    func exactMember(_ name: String) -> UnsafeMutablePointer<json_t>? {
        var name = name
        return name.withUTF8 { u in
            u.withMemoryRebound(to: CChar.self) { n in
                guard let base = n.baseAddress else { return json_object_getn(root, "", 0) }
                return json_object_getn(root, base, n.count)
            }
        }
    }

    func value() -> JSONValue { Self.value(root) }

    func object() -> JSONObject {
        if case .object(let o) = Self.value(root) { return o }
        return JSONObject()
    }

    static func type(_ j: UnsafeMutablePointer<json_t>) -> Int32 { ctk_json_typeof(j) }

    /// The number of elements when `j` is an array, else `nil`.
    static func arrayCount(_ j: UnsafeMutablePointer<json_t>) -> Int? {
        ctk_json_typeof(j) == Int32(JSON_ARRAY.rawValue) ? json_array_size(j) : nil
    }

    static func string(_ j: UnsafeMutablePointer<json_t>) -> String? {
        guard ctk_json_typeof(j) == Int32(JSON_STRING.rawValue), let p = json_string_value(j) else { return nil }
        let n = json_string_length(j)
        return p.withMemoryRebound(to: UInt8.self, capacity: n) { String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self) }
    }

    /// The value when `j` is `true` or `false`, else `nil`.
    static func bool(_ j: UnsafeMutablePointer<json_t>) -> Bool? {
        switch UInt32(ctk_json_typeof(j)) {
        case JSON_TRUE.rawValue: true
        case JSON_FALSE.rawValue: false
        default: nil
        }
    }

    /// Compares a jansson string with `expected` without creating a Swift String.
    static func stringEquals(_ j: UnsafeMutablePointer<json_t>, _ expected: String) -> Bool {
        guard ctk_json_typeof(j) == Int32(JSON_STRING.rawValue), let p = json_string_value(j) else { return false }
        let n = json_string_length(j)
        var expected = expected
        return expected.withUTF8 { e in
            e.count == n && (n == 0 || memcmp(p, e.baseAddress!, n) == 0)
        }
    }

    static func value(_ j: UnsafeMutablePointer<json_t>) -> JSONValue {
        switch UInt32(ctk_json_typeof(j)) {
        case JSON_OBJECT.rawValue:
            var members: [(key: String, value: JSONValue)] = []
            members.reserveCapacity(json_object_size(j))
            var iter = json_object_iter(j)
            while let it = iter {
                let keyPtr = ctk_json_object_iter_key(it)!
                let keyLen = ctk_json_object_iter_key_len(it)
                let key = keyPtr.withMemoryRebound(to: UInt8.self, capacity: keyLen) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: keyLen), as: UTF8.self)
                }
                members.append((key, value(json_object_iter_value(it))))
                iter = json_object_iter_next(j, it)
            }
            return .object(JSONObject(members))
        case JSON_ARRAY.rawValue:
            let n = json_array_size(j)
            var out: [JSONValue] = []
            out.reserveCapacity(n)
            for i in 0..<n { out.append(value(json_array_get(j, i))) }
            return .array(out)
        case JSON_STRING.rawValue: return .string(string(j) ?? "")
        case JSON_INTEGER.rawValue: return .int(Int64(json_integer_value(j)))
        case JSON_REAL.rawValue: return .double(json_real_value(j))
        case JSON_TRUE.rawValue: return .bool(true)
        case JSON_FALSE.rawValue: return .bool(false)
        default: return .null
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
