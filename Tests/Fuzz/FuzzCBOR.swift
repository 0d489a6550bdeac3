import Foundation
@testable import Identity
@testable import JOSE

// libFuzzer target "cbor": the WebAuthn CBOR decoder (Identity/WebAuthn/CBORDecoder.swift) on
// hostile bytes: whole-input decoding under the default bounds and under tight ones, and prefix
// decoding from every one of the first offsets (authenticator data puts a COSE key mid-buffer);
// then the same bytes as authenticator data, as a COSE key, and as an attestation object in a
// registration. Invariants: the decoder throws only `malformed_cbor`; a prefix ends inside the
// input; a value decoded whole is the same value decoded as a prefix ending at the end; the
// WebAuthn readers throw only TokenErrors.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBOR(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    func decodes(_ body: () throws -> Void) {
        do { try body() } catch let e as TokenError {
            Fuzz.check(e.code == .malformedCBOR, "CBOR refused with \(e.code), not malformed_cbor")
        } catch {
            Fuzz.fail("CBOR threw a non-TokenError: \(error)")
        }
    }
    decodes {
        let whole = try CBOR.decode(bytes)
        let (prefix, end) = try CBOR.decodePrefix(bytes, from: 0)
        Fuzz.check(end == bytes.count && prefix == whole, "a whole decode and a prefix decode differ")
        walk(whole)
    }
    decodes { _ = try CBOR.decode(bytes, limits: CBORLimits(maxBytes: 4096, maxDepth: 2, maxItems: 4, maxTotalItems: 16)) }
    for offset in 0..<min(bytes.count, 8) {
        decodes {
            let (value, end) = try CBOR.decodePrefix(bytes, from: offset)
            Fuzz.check(end > offset && end <= bytes.count, "a prefix ends outside the input")
            walk(value)
        }
    }
    let relyingParty = WebAuthnRelyingParty(id: "example.org", origins: ["https://example.org"])
    let clientData = Array(#"{"type":"webauthn.create","challenge":"AAAA","origin":"https://example.org"}"#.utf8)
    for attempt in [
        { _ = try AuthenticatorData(bytes) },
        { _ = try COSEKey(try CBOR.decode(bytes)) },
        { _ = try relyingParty.verifyRegistration(clientDataJSON: clientData, attestationObject: bytes, challenge: [0, 0, 0]) },
    ] as [() throws -> Void] {
        do { try attempt() } catch is TokenError {} catch { Fuzz.fail("a WebAuthn reader threw a non-TokenError: \(error)") }
    }
    return 0
}

/// Reads every part of a value as a caller would (map look-ups by each key, integer values).
private func walk(_ value: CBORValue) {
    _ = value.intValue
    switch value {
    case .array(let items): items.forEach(walk)
    case .map(let map):
        for entry in map.entries {
            Fuzz.check(map[entry.key] == entry.value, "a map look-up misses its own key")
            walk(entry.value)
        }
    default: break
    }
}
