/// Reads RFC 6750 §2.1 credentials, `Authorization: Bearer <b64token>`: the one parser of the
/// sign-in server and of the resource servers' middleware. Each maps the outcome to its own answer.
public enum BearerCredentials {
    /// The largest token read, in bytes: far above any token this toolkit issues (an access token
    /// with many claims is a few KiB, a refresh token 43 bytes), far below what could hurt.
    public static let maxTokenBytes = 8 * 1024

    /// Why a header value is not Bearer credentials.
    public enum Failure: Error, Sendable, Hashable {
        /// Another scheme, or none: the request carries no Bearer credentials.
        case notBearer
        /// The `Bearer` scheme with no token, an over-size token, or one that is not a b64token.
        case malformedToken
    }

    /// The token of one `Authorization` header value. The scheme is case-insensitive and ends at
    /// the first space; white space (spaces and tabs) around the token is skipped.
    public static func token(of header: String) -> Result<String, Failure> {
        let value = header.utf8[...]
        let scheme = value.prefix { $0 != UInt8(ascii: " ") }
        guard String(decoding: scheme, as: UTF8.self).lowercased() == "bearer" else { return .failure(.notBearer) }
        var token = value.dropFirst(scheme.count).drop(while: isWhiteSpace)
        while let last = token.last, isWhiteSpace(last) { token = token.dropLast() }
        guard !token.isEmpty, token.count <= maxTokenBytes, isB64Token(token) else { return .failure(.malformedToken) }
        return .success(String(decoding: token, as: UTF8.self))
    }

    private static func isWhiteSpace(_ c: UInt8) -> Bool { c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") }

    /// `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`
    private static func isB64Token(_ bytes: Substring.UTF8View) -> Bool {
        let body = bytes.reversed().drop { $0 == UInt8(ascii: "=") }
        guard !body.isEmpty else { return false }
        return body.allSatisfy { c in
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39)
                || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "~")
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "/")
        }
    }
}
