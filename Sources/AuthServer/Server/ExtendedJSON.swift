import Foundation
import JOSE

/// MongoDB Extended JSON v2 (the `mongodb/specifications` "Extended JSON" spec) read into its
/// relaxed form: realm-web sends canonical Extended JSON, the realm-core SDKs plain JSON, and
/// every body goes through here once, so a member reads the same either way.
///
/// - `{"$numberInt"}` and `{"$numberDouble"}` (finite) become JSON numbers; `{"$numberLong"}` too
///   within ±2^53 (what a JavaScript function reads exactly), else it stays in its `$` form;
///   `{"$date": {"$numberLong"}}` becomes `{"$date": "…Z"}` for years 1970…9999.
/// - Every other type wrapper (`$oid`, `$binary`, `$regularExpression`, …) is checked and kept.
/// - An object holding a wrapper's key must be exactly that wrapper: a missing or extra member,
///   or a value of the wrong type, is refused (the spec's parse errors).
enum ExtendedJSON {
    /// The relaxed form of `value`.
    /// - Parameter path: the member's JSON path, for messages (`options.device.deviceId`).
    /// - Throws: `invalid_parameter` naming the member whose wrapper is malformed.
    static func relaxed(_ value: JSONValue, path: String = "") throws -> JSONValue {
        switch value {
        case .array(let items):
            return .array(try items.enumerated().map { try relaxed($1, path: "\(path)[\($0)]") })
        case .object(let object):
            if let wrapper = try wrapper(object, path: path) { return wrapper }
            var out = JSONObject()
            for (key, member) in object { out[key] = try relaxed(member, path: path.isEmpty ? key : path + "." + key) }
            return .object(out)
        default:
            return value
        }
    }

    /// The keys that make an object a type wrapper.
    private static let wrapperKeys: Set<String> = [
        "$oid", "$symbol", "$numberInt", "$numberLong", "$numberDouble", "$numberDecimal", "$binary", "$code",
        "$timestamp", "$regularExpression", "$dbPointer", "$date", "$minKey", "$maxKey", "$undefined",
    ]

    /// `nil` for an ordinary object; the relaxed value of a well-formed wrapper.
    private static func wrapper(_ object: JSONObject, path: String) throws -> JSONValue? {
        guard let key = object.keys.first(where: wrapperKeys.contains) else { return nil }
        func bad(_ why: String) -> TokenError {
            TokenError(.invalidParameter, "\"\(path.isEmpty ? key : path)\" is not valid Extended JSON: \(why)")
        }
        let value = object[key]!
        let extra = Set(object.keys).subtracting([key] + (key == "$code" ? ["$scope"] : key == "$binary" ? ["$type"] : []))
        guard extra.isEmpty else { throw bad("\(key) with another member") }
        func string() throws -> String {
            guard let s = value.stringValue else { throw bad("\(key) must be a string, got \(value.typeName)") }
            return s
        }
        func members(_ names: Set<String>) throws -> JSONObject {
            guard let o = value.objectValue, Set(o.keys) == names else { throw bad("\(key) must be an object of \(names.sorted())") }
            return o
        }
        switch key {
        case "$oid":
            let hex = try string()
            guard hex.utf8.count == 24, hex.utf8.allSatisfy(\.isHexDigit) else { throw bad("$oid must be 24 hex digits") }
            return .object([key: .string(hex.lowercased())])
        case "$numberInt":
            guard let n = Int32(decimal: try string()) else { throw bad("$numberInt must be a 32-bit decimal integer") }
            return .int(Int64(n))
        case "$numberLong":
            guard let n = Int64(decimal: try string()) else { throw bad("$numberLong must be a 64-bit decimal integer") }
            return n.magnitude <= 1 << 53 ? .int(n) : .object([key: .string(String(n))])
        case "$numberDouble":
            let text = try string()
            if ["Infinity", "-Infinity", "NaN"].contains(text) { return .object([key: .string(text)]) }
            guard text.utf8.allSatisfy({ $0.isDecimalDigit || "+-.eE".utf8.contains($0) }), let d = Double(text), d.isFinite else {
                throw bad("$numberDouble must be a decimal number, Infinity, -Infinity or NaN")
            }
            return .double(d)
        case "$date":
            return try date(value, bad: bad)
        case "$binary":
            if object["$type"] != nil {  // the legacy form: {"$binary": base64, "$type": hex}
                guard value.stringValue != nil, object["$type"]?.stringValue != nil else { throw bad("$binary and $type must be strings") }
            } else {
                let o = try members(["base64", "subType"])
                guard o["base64"]?.stringValue != nil, let t = o["subType"]?.stringValue, (1...2).contains(t.utf8.count),
                    t.utf8.allSatisfy(\.isHexDigit)
                else { throw bad("$binary needs a base64 string and a subType of 1 or 2 hex digits") }
            }
            return .object(object)
        case "$code":
            _ = try string()
            guard let scope = object["$scope"] else { return .object(object) }
            guard scope.objectValue != nil else { throw bad("$scope must be an object, got \(scope.typeName)") }
            return .object(["$code": value, "$scope": try relaxed(scope, path: path + ".$scope")])
        case "$timestamp":
            let o = try members(["t", "i"])
            for name in ["t", "i"] {
                guard case .int(let n)? = o[name], (0...Int64(UInt32.max)).contains(n) else {
                    throw bad("$timestamp.\(name) must be an unsigned 32-bit integer")
                }
            }
            return .object(object)
        case "$regularExpression":
            let o = try members(["pattern", "options"])
            guard o["pattern"]?.stringValue != nil, o["options"]?.stringValue != nil else { throw bad("pattern and options must be strings") }
            return .object(object)
        case "$dbPointer":
            let o = try members(["$ref", "$id"])
            guard o["$ref"]?.stringValue != nil, let id = o["$id"]?.objectValue, id.keys == ["$oid"] else {
                throw bad("$dbPointer needs a $ref string and an $id ObjectId")
            }
            return .object([key: .object(["$ref": o["$ref"]!, "$id": try relaxed(.object(id), path: path + ".$id")])])
        case "$minKey", "$maxKey":
            guard value == .int(1) else { throw bad("\(key) must be 1") }
            return .object(object)
        case "$undefined":
            guard value == .bool(true) else { throw bad("$undefined must be true") }
            return .object(object)
        default:  // $symbol, $numberDecimal: a string, kept
            _ = try string()
            return .object(object)
        }
    }

    /// `{"$date": {"$numberLong": ms}}` or `{"$date": "ISO-8601"}`, relaxed: an ISO-8601 string
    /// with milliseconds when there are any, for years 1970…9999; else the canonical form.
    private static func date(_ value: JSONValue, bad: (String) -> TokenError) throws -> JSONValue {
        let ms: Int64
        if let text = value.stringValue {
            guard let parsed = parseISO(text) else { throw bad("$date must be an ISO-8601 date-time") }
            ms = parsed
        } else if let o = value.objectValue, o.keys == ["$numberLong"], let s = o["$numberLong"]?.stringValue, let n = Int64(decimal: s) {
            ms = n
        } else {
            throw bad("$date must be an ISO-8601 string or {\"$numberLong\": milliseconds}")
        }
        guard ms >= 0, ms < 253_402_300_800_000 else { return .object(["$date": .object(["$numberLong": .string(String(ms))])]) }
        var text = UTCTime.format(Double(ms / 1000))
        if ms % 1000 != 0 {
            let fraction = String(ms % 1000)
            text.insert(contentsOf: "." + String(repeating: "0", count: 3 - fraction.count) + fraction, at: text.index(before: text.endIndex))
        }
        return .object(["$date": .string(text)])
    }

    /// Milliseconds since 1970 of an ISO-8601 date-time with a zone (`Z` or `±HH:MM`).
    private static func parseISO(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard text.utf8.count <= 40, let date = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) else { return nil }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}

extension UInt8 {
    fileprivate var isDecimalDigit: Bool { self >= 0x30 && self <= 0x39 }
    fileprivate var isHexDigit: Bool { isDecimalDigit || (self | 0x20 >= 0x61 && self | 0x20 <= 0x66) }
}

extension FixedWidthInteger where Self: SignedInteger {
    /// A decimal integer as Extended JSON writes one: an optional `-`, then digits, nothing else
    /// (no `+`, no white space), within the type's range.
    fileprivate init?(decimal text: String) {
        let digits = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
        guard !digits.isEmpty, digits.count <= 20, digits.allSatisfy(\.isDecimalDigit) else { return nil }
        self.init(text, radix: 10)
    }
}
