import Foundation
import Identity
import JOSE
import Sessions

/// Reads one JSON object of the config strictly: every member must be read by the time
/// ``finish()`` runs, or the first unread one is reported as `PATH: unknown member`.
struct ConfigObject {
    let path: String
    private let object: JSONObject
    private var read: Set<String> = []

    init(_ object: JSONObject, path: String) {
        self.object = object
        self.path = path
    }

    /// `PATH.name` (or `name` at the top level).
    func path(_ name: String) -> String { path.isEmpty ? name : path + "." + name }

    func error(_ name: String, _ message: String) -> TokenError {
        TokenError(.invalidConfiguration, "\(path(name)): \(message)")
    }

    var memberNames: [String] { object.keys }

    mutating func value(_ name: String) -> JSONValue? {
        read.insert(name)
        guard let v = object[name], v != .null else { return nil }
        return v
    }

    mutating func string(_ name: String) throws -> String? {
        guard let v = value(name) else { return nil }
        guard let s = v.stringValue else { throw error(name, "must be a string, got \(v.typeName)") }
        return s
    }

    mutating func requiredString(_ name: String) throws -> String {
        guard let s = try string(name) else { throw error(name, "required member is missing") }
        return s
    }

    mutating func bool(_ name: String) throws -> Bool? {
        guard let v = value(name) else { return nil }
        guard let b = v.boolValue else { throw error(name, "must be true or false, got \(v.typeName)") }
        return b
    }

    mutating func int(_ name: String, range: ClosedRange<Int64>) throws -> Int64? {
        guard let v = value(name) else { return nil }
        guard let i = v.intValue, range.contains(i) else { throw error(name, "must be an integer in \(range.lowerBound)…\(range.upperBound)") }
        return i
    }

    mutating func strings(_ name: String) throws -> [String]? {
        guard let v = value(name) else { return nil }
        if let s = v.stringValue { return [s] }
        guard let a = v.arrayValue else { throw error(name, "must be an array of strings, got \(v.typeName)") }
        return try a.map { e in
            guard let s = e.stringValue else { throw error(name, "must be an array of strings, got an element of type \(e.typeName)") }
            return s
        }
    }

    mutating func object(_ name: String) throws -> ConfigObject? {
        guard let v = value(name) else { return nil }
        guard let o = v.objectValue else { throw error(name, "must be an object, got \(v.typeName)") }
        return ConfigObject(o, path: path(name))
    }

    /// A duration: one number and one unit, `s`, `m`, `h` or `d` (`"30m"`); in seconds.
    mutating func duration(_ name: String) throws -> Int64? {
        guard let s = try string(name) else { return nil }
        guard let d = Self.parseDuration(s) else { throw error(name, "must be a duration like \"30m\" (units s, m, h, d)") }
        return d
    }

    /// A duration within `range` seconds.
    mutating func duration(_ name: String, range: ClosedRange<Int64>) throws -> Int64? {
        guard let d = try duration(name) else { return nil }
        guard range.contains(d) else { throw error(name, "must be a duration of \(range.lowerBound)s…\(range.upperBound)s") }
        return d
    }

    /// A rate `N/DURATION` (`"300/5m"`).
    mutating func rate(_ name: String) throws -> RateLimit? {
        guard let s = try string(name) else { return nil }
        guard let rate = try? RateLimit(parsing: s) else {
            throw error(name, "must be a rate like \"300/5m\" (a count up to 100000, a slash, a duration up to 30d)")
        }
        return rate
    }

    /// Fails on the first member nobody read: a typo must not silently disable a check.
    func finish() throws {
        for name in object.keys where !read.contains(name) {
            throw error(name, "unknown member")
        }
    }

    /// A config duration: ``JOSE/DurationText`` in s, m, h or d, longer than 0 and at most ten years.
    static func parseDuration(_ s: String) -> Int64? {
        guard let value = DurationText.seconds(s, units: "smhd"), value > 0, value <= 10 * 365 * 86_400 else { return nil }
        return value
    }
}

/// Secrets and keys named by the config, read by the CLI's reader (``JOSE/SecretFile``: at most
/// 64 KiB, one trailing newline dropped, never empty, owner-only); a failure names the member.
enum ConfigSecret {
    /// Owner-only, as the master key is: a secret others can read is refused with the `chmod 600` to run.
    static func read(_ path: String, what: String) throws -> [UInt8] {
        guard path != "-" else { throw TokenError(.invalidConfiguration, "\(what): standard input is not a file") }
        do { return try SecretFile.read(path: path, ownerOnly: true) } catch let e as TokenError {
            throw TokenError(.invalidConfiguration, "\(what): \(e.message)")
        }
    }
}
