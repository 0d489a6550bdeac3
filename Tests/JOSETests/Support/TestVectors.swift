import Foundation
import Testing
@testable import JOSE

/// Finds and reads the files under the package's `TestVectors/` folder. The folder is located
/// from this source file's path, so tests work from any working directory.
enum TestVectors {
    /// `<package>/TestVectors`.
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)  // <package>/Tests/JOSETests/Support/TestVectors.swift
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("TestVectors", isDirectory: true)
    }()

    static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    static func data(_ relative: String) throws -> Data {
        do { return try Data(contentsOf: url(relative)) } catch { throw VectorError("cannot read TestVectors/\(relative): \(error)") }
    }

    static func bytes(_ relative: String) throws -> [UInt8] { Array(try data(relative)) }

    static func text(_ relative: String) throws -> String { String(decoding: try data(relative), as: UTF8.self) }

    /// Parses a vector file with Foundation's JSON (independent of the JSON code under test).
    static func json(_ relative: String) throws -> VJSON {
        try JSONDecoder().decode(VJSON.self, from: data(relative))
    }

    /// A Wycheproof file from `TestVectors/wycheproof/`, after checking its declared test count.
    static func wycheproof(_ name: String) throws -> VJSON {
        let file = try json("wycheproof/\(name)")
        let counted = file["testGroups"].array.reduce(0) { $0 + $1["tests"].array.count }
        guard counted == file["numberOfTests"].int else {
            throw VectorError("\(name): numberOfTests \(file["numberOfTests"].int) but \(counted) tests found")
        }
        return file
    }
}

struct VectorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A JSON value read by Foundation, for test vectors. Missing members read as `.null`.
enum VJSON: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([VJSON])
    case object([String: VJSON])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([VJSON].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: VJSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    subscript(key: String) -> VJSON {
        if case .object(let o) = self { return o[key] ?? .null }
        return .null
    }
    var isNull: Bool { self == .null }
    var string: String { if case .string(let s) = self { return s }; return "" }
    var stringOrNil: String? { if case .string(let s) = self { return s }; return nil }
    var int: Int { if case .int(let i) = self { return i }; return -1 }
    var array: [VJSON] { if case .array(let a) = self { return a }; return [] }
    var strings: [String] { array.compactMap(\.stringOrNil) }
    var hex: [UInt8] { [UInt8](hex: string) }

    /// Compact JSON text (Foundation's encoder; member order is not significant here).
    var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// Bytes from lowercase or uppercase hex (an odd length or a non-hex digit traps: vector data is trusted).
    init(hex: String) {
        let digits = Array(hex.utf8)
        precondition(digits.count % 2 == 0, "odd hex length")
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: preconditionFailure("not hex")
            }
        }
        self = stride(from: 0, to: digits.count, by: 2).map { nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
    }

    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
    }
}

/// What a verification did: accepted, or the error that rejected it.
enum Outcome: CustomStringConvertible {
    case accepted
    case rejected(TokenError)

    init(_ body: () throws -> Void) {
        do { try body(); self = .accepted } catch let e as TokenError { self = .rejected(e) } catch {
            self = .rejected(TokenError(.internalError, "non-TokenError \(error)"))
        }
    }

    var accepted: Bool { if case .accepted = self { return true }; return false }
    var code: TokenError.Code? { if case .rejected(let e) = self { return e.code }; return nil }
    var description: String {
        switch self {
        case .accepted: return "accepted"
        case .rejected(let e): return "rejected (\(e.code): \(e.message))"
        }
    }
}

extension VJSON: ExpressibleByStringInterpolation, ExpressibleByDictionaryLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    init(stringLiteral value: String) { self = .string(value) }
    init(dictionaryLiteral elements: (String, VJSON)...) { self = .object(Dictionary(uniqueKeysWithValues: elements)) }
    init(integerLiteral value: Int) { self = .int(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
}
