import JOSE

/// Refresh-token secrets: generation, hashing, and sealing a successor for the grace interval.
enum RefreshToken {
    /// 256 random bits from OpenSSL's RNG, base64url (43 characters). Never starts with "-":
    /// such a token, passed as a command-line argument (`tokentool token refresh TOKEN`), reads
    /// as an option. One draw in 64 is drawn again, which costs 0.02 of the 256 bits.
    static func generate() throws -> String {
        while true {
            let token = try RandomID.base64URL(bytes: 32)
            if token.utf8.first != UInt8(ascii: "-") { return token }
        }
    }

    /// What the store keeps instead of the token: base64url(SHA-256(token)).
    static func hash(_ token: String) -> String { Base64URL.encode(SHA2.sha256(Array(token.utf8))) }

    /// `true` when `text` has the shape of a refresh token (43 base64url characters).
    static func looksLikeRefreshToken(_ text: String) -> Bool {
        text.utf8.count == 43
            && text.utf8.allSatisfy { c in
                (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x5F
            }
    }

    /// Why a pasted value is not a refresh token, when a usual mistake explains it.
    static func shapeHint(_ text: String) -> String {
        if text.lowercased().hasPrefix("bearer ") { return " (remove the \"Bearer \" prefix: send the token alone)" }
        if let f = text.unicodeScalars.first, let l = text.unicodeScalars.last,
            [" ", "\t", "\n", "\r", "\""].contains(f) || [" ", "\t", "\n", "\r", "\""].contains(l)
        {
            return " (remove the surrounding white space or quotes)"
        }
        return ""
    }

    // The successor of a spent token is kept so that a client that lost the response to its
    // refresh can present the spent token again, within the grace interval, and get the same
    // successor back. It is sealed (``Sealer``) under HMAC-SHA256(predecessor, label), not the
    // master key: the store holds only SHA-256(predecessor), so neither the store nor anyone who
    // reads it can open the box; only the holder of the predecessor can, and that holder is
    // exactly who the grace rule serves. The context binds the box to its session and predecessor row.
    private static let sealLabel = Array("tokentool refresh-token grace seal v1".utf8)

    static func sealSuccessor(_ successor: String, predecessor: String, sessionID: String) throws -> String {
        let key = try HMAC.sha256(key: Array(predecessor.utf8), data: sealLabel)
        return try Sealer.seal(Array(successor.utf8), key: key, purpose: .refreshSuccessor, context: [sessionID, hash(predecessor)])
    }

    static func openSuccessor(_ sealed: String, predecessor: String, sessionID: String) -> String? {
        guard let key = try? HMAC.sha256(key: Array(predecessor.utf8), data: sealLabel),
            let plain = try? Sealer.open(sealed, key: key, purpose: .refreshSuccessor, context: [sessionID, hash(predecessor)])
        else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }
}
