import Foundation
@testable import JOSE

// libFuzzer target "claims": a JWT payload as the verifier sees it after the signature check:
// strict JSON parsing under the claim limits, registered-claim validation, Codable decoding
// straight from the jansson tree, ClaimSet accessors and the display helpers.

private let options = VerifierOptions(
    issuers: ["https://issuer.example"], audiences: ["app", "api"],
    requiredClaims: ["sub"], leeway: 30, clock: .fixed(unixSeconds: Fuzz.now))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClaims(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    if let doc = try? JSONDocument(parsing: bytes, limits: TokenLimits.default.claims, what: "token payload") {
        _ = try? ClaimValidator.validate(doc, options: options)
        _ = try? ClaimsDecoder.decode(AppClaims.self, from: doc)
        _ = try? ClaimsDecoder.decode(JSONValue.self, from: doc)
        _ = try? ClaimsDecoder.decode([String: JSONValue].self, from: doc)
        let claims = ClaimSet(doc.object())
        Fuzz.exercise(claims)
        // Invariant: our JSON output parses back, and writing it again gives the same bytes.
        let once = claims.jsonString
        let again: JSONValue
        do { again = try JSONValue(parsing: once, limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 64, maxTopLevelMembers: 1 << 16)) } catch {
            Fuzz.fail("our own JSON output does not parse: \(error)")
        }
        Fuzz.check(again.jsonString == once, "JSON output is not stable across a round trip")
    }
    if let any = try? JSONValue(parsing: String(decoding: bytes, as: UTF8.self)) {
        _ = any.prettyString()
    }
    return 0
}
