import JOSE

/// Authenticator data (WebAuthn Level 2 §6.1): what the authenticator signed about itself.
public struct AuthenticatorData: Sendable {
    /// SHA-256 of the relying party id the authenticator scoped the credential to.
    public let rpIDHash: [UInt8]
    /// The flags byte.
    public let flags: UInt8
    /// The signature counter (0 when the authenticator keeps none).
    public let signCount: UInt32
    /// Attested credential data (§6.5.1), present when the AT flag is set (registration).
    public let attestedCredential: AttestedCredential?
    /// The raw bytes, as signed.
    public let bytes: [UInt8]

    /// User present (UP, bit 0).
    public var userPresent: Bool { flags & 0x01 != 0 }
    /// User verified (UV, bit 2).
    public var userVerified: Bool { flags & 0x04 != 0 }
    /// Backup eligible (BE, bit 3; WebAuthn Level 3 §6.1): the credential may be synced.
    public var backupEligible: Bool { flags & 0x08 != 0 }
    /// Backed up (BS, bit 4; Level 3): the credential is synced now.
    public var backedUp: Bool { flags & 0x10 != 0 }

    /// The credential created at registration (§6.5.1).
    public struct AttestedCredential: Sendable {
        /// The authenticator model (16 bytes; zeros under attestation `none`).
        public let aaguid: [UInt8]
        /// The credential id (1 to 1023 bytes, WebAuthn Level 3 §6.5.1).
        public let credentialID: [UInt8]
        /// The credential public key as a COSE key (RFC 9052 §7).
        public let publicKey: COSEKey
    }

    /// Parses authenticator data: 37 bytes of rpIdHash, flags and counter, then the attested
    /// credential data when AT is set, then the extensions map when ED is set, then nothing.
    /// - Throws: `webauthn_malformed` for a wrong length or trailing bytes; `malformed_cbor` for the
    ///   COSE key or extensions; `webauthn_unsupported` for a key type or algorithm not accepted.
    public init(_ bytes: [UInt8]) throws {
        guard bytes.count >= 37 else { throw TokenError(.webAuthnMalformed, "authenticator data is \(bytes.count) bytes; at least 37") }
        guard bytes.count <= CBORLimits.webAuthn.maxBytes else { throw TokenError(.webAuthnMalformed, "authenticator data is too long") }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var position = 37
        if flags & 0x40 != 0 {
            guard bytes.count >= position + 18 else { throw TokenError(.webAuthnMalformed, "attested credential data is truncated") }
            let aaguid = Array(bytes[position..<(position + 16)])
            let idLength = Int(bytes[position + 16]) << 8 | Int(bytes[position + 17])
            position += 18
            guard (1...1023).contains(idLength), bytes.count >= position + idLength else {
                throw TokenError(.webAuthnMalformed, "the credential id is \(idLength) bytes or truncated; 1 to 1023")
            }
            let id = Array(bytes[position..<(position + idLength)])
            position += idLength
            let (cose, end) = try CBOR.decodePrefix(bytes, from: position)
            position = end
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialID: id, publicKey: try COSEKey(cose))
        } else {
            attestedCredential = nil
        }
        if flags & 0x80 != 0 {
            let (extensions, end) = try CBOR.decodePrefix(bytes, from: position)
            guard extensions.mapValue != nil else { throw TokenError(.webAuthnMalformed, "authenticator extensions are not a map") }
            position = end
        }
        guard position == bytes.count else { throw TokenError(.webAuthnMalformed, "\(bytes.count - position) bytes follow the authenticator data") }
        // Level 3 §6.1: BS may be set only when BE is.
        guard backupEligible || !backedUp else { throw TokenError(.webAuthnMalformed, "the BS flag is set without BE") }
    }
}
