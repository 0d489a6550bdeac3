import Foundation
@testable import JOSE

/// Helpers shared by the libFuzzer entry points (Tests/Fuzz/*.swift, built by scripts/fuzz.sh).
///
/// A fuzz target must never trap on any input: every `precondition` here states an invariant
/// of the library (a round trip, a re-import), so a violation is a finding, like a crash.
enum Fuzz {
    static let now: Int64 = 1_790_000_000

    /// Reports a broken invariant and aborts, so libFuzzer saves the input (in -O builds a
    /// `preconditionFailure` message would be dropped).
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("fuzz invariant broken: \(message)\n".utf8))
        abort()
    }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }

    static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// Exercises everything a caller may do with a key read from hostile input.
    static func exercise(_ key: JWK) {
        _ = key.summary
        _ = key.allowedAlgorithms
        for alg in JWSAlgorithm.allCases {
            _ = try? key.check(alg, for: .verify)
            _ = try? key.check(alg, for: .sign)
        }
        _ = try? key.pem(includePrivate: false)
        _ = try? key.publicKeyDER()
        let thumbprint = try? key.thumbprint()
        // Invariant: what we export, we read back as the same key.
        if let exported = try? key.jsonString(includePrivate: true) {
            let again: JWK
            do { again = try JWK(json: exported) } catch { Fuzz.fail("exported JWK does not re-import: \(error)") }
            Fuzz.check((try? again.thumbprint()) == thumbprint, "re-imported JWK has another thumbprint")
        }
        if key.keyType != .oct, let pem = try? key.pem(includePrivate: true) {
            do { _ = try JWK(pem: pem) } catch { Fuzz.fail("exported PEM does not re-import: \(error)") }
        }
        // Invariant: a usable private key's signature verifies with its public half.
        if key.isPrivate, let signer = try? JWTSigner(key: key) {
            do {
                let token = try signer.sign(["sub": "fuzz"])
                _ = try JWTVerifier(key: key.publicKey).verify(token)
            } catch {
                Fuzz.fail("a token signed by a fuzzed key does not verify with it: \(error)")
            }
        }
    }

    /// Exercises the display helpers on every number in a claims object (`tokentool decode` does this).
    static func exercise(_ claims: ClaimSet) {
        for (_, value) in claims.object {
            if let n = value.numberValue {
                _ = UTCTime.format(n)
                _ = UTCTime.relative(n, now: Double(now))
            }
        }
        _ = claims.expiresAt
        _ = claims.notBefore
        _ = claims.issuedAt
        _ = claims.audience
        _ = claims.subject
        _ = JSONValue.object(claims.object).prettyString()
    }
}

/// A typical application claims type: optional members of every Codable shape.
struct AppClaims: Decodable, Sendable {
    struct Address: Decodable, Sendable { var street: String?; var zip: Int?; var country: String? }
    enum Role: String, Decodable, Sendable { case admin, user, guest }
    var iss: String?
    var sub: String?
    var aud: JSONValue?
    var exp: Date?
    var nbf: Date?
    var iat: Int64?
    var jti: String?
    var scope: String?
    var roles: [Role]?
    var email_verified: Bool?
    var amount: Double?
    var small: UInt8?
    var count: Int32?
    var picture: URL?
    var address: Address?
    var extra: [String: JSONValue]?
    var matrix: [[Int]]?
}
