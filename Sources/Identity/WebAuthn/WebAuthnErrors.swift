public import JOSE

extension TokenError.Code {
    /// A CBOR item (RFC 8949) that is malformed, of a kind WebAuthn does not use (tags, floats,
    /// indefinite lengths), over a size, depth or count bound, with a duplicate map key, or followed
    /// by trailing bytes.
    public static let malformedCBOR = TokenError.Code("malformed_cbor", .rejected)

    /// Every code of WebAuthn (passkeys) and its CBOR.
    public static let webAuthnCodes: [TokenError.Code] = [.malformedCBOR]
}
