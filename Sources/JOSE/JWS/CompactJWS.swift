/// A compact JWS split and checked (RFC 7515 §7.1), with its header parsed. The payload and
/// signature are decoded but nothing is verified yet.
struct CompactJWS {
    let header: JOSEHeader
    let headerDocument: JSONDocument
    /// `BASE64URL(header) '.' BASE64URL(payload)`: the exact bytes that were signed.
    let signingInput: ArraySlice<UInt8>
    let payload: [UInt8]
    let signature: [UInt8]
    private let bytes: [UInt8]
    private let payloadRange: Range<Int>
    /// The payload segment as received (base64url); made only when asked for.
    var payloadSegment: String { String(decoding: bytes[payloadRange], as: UTF8.self) }

    /// Splits and checks `token`.
    /// - Throws: `malformed` or `unsupported_algorithm`, with what was expected and found.
    init(_ token: String, limits: TokenLimits) throws {
        // The size limit comes before any copy or decoding work (utf8.count is O(1) for native strings).
        let size = token.utf8.count
        if size > limits.maxTokenBytes {
            throw TokenError.malformed("token is \(size) bytes; the limit is \(limits.maxTokenBytes)")
        }
        let bytes = Array(token.utf8)
        try self.init(bytes: bytes, limits: limits)
    }

    init(bytes: [UInt8], limits: TokenLimits) throws {
        let segments = try Self.split(bytes, limits: limits)
        header = try Self.readHeader(segments.headerDocument)
        if segments.signature.isEmpty { throw TokenError.malformed("token has an empty signature") }
        headerDocument = segments.headerDocument
        payload = segments.payload
        signature = segments.signature
        signingInput = bytes[0..<segments.payloadRange.upperBound]
        self.bytes = bytes
        payloadRange = segments.payloadRange
    }

    /// The three segments decoded (strict base64url, header JSON parsed with duplicate names
    /// rejected), before the header's rules (alg, crit, b64, header keys) are applied.
    struct Segments {
        let headerDocument: JSONDocument
        let payload: [UInt8]
        let signature: [UInt8]
        let payloadRange: Range<Int>
    }

    static func split(_ bytes: [UInt8], limits: TokenLimits) throws -> Segments {
        if bytes.count > limits.maxTokenBytes {
            throw TokenError.malformed("token is \(bytes.count) bytes; the limit is \(limits.maxTokenBytes)")
        }
        if bytes.isEmpty { throw TokenError.malformed("token is empty") }
        try checkFraming(bytes)
        // The first two dots, and whether there are more (counted up to 5), found with memchr.
        var dots = (-1, -1)
        var dotCount = 0
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return }
            var from = 0
            while from < b.count, let hit = memchr(base + from, Int32(UInt8(ascii: ".")), b.count - from) {
                let i = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if dotCount == 0 { dots.0 = i } else if dotCount == 1 { dots.1 = i }
                dotCount += 1
                if dotCount > 4 { break }
                from = i + 1
            }
        }
        guard dotCount == 2 else {
            let found = dotCount > 4 ? "more than 5" : String(dotCount + 1)
            var message = "token contains an invalid number of segments: found \(found), expected 3"
            if dotCount == 4 { message += " (5 segments is a JWE, an encrypted token, which is not supported)" }
            throw TokenError.malformed(message)
        }
        let h = bytes[0..<dots.0], p = bytes[(dots.0 + 1)..<dots.1], s = bytes[(dots.1 + 1)...]
        if h.isEmpty { throw TokenError.malformed("token header segment is empty") }

        var headerBytes: [UInt8] = []
        if let problem = Base64URL.decode(h, into: &headerBytes) {
            throw TokenError.malformed("token header is not valid base64url: it \(problem.message)")
        }
        let doc = try JSONDocument(parsing: headerBytes, limits: limits.header, what: "token header")
        var payloadBytes: [UInt8] = []
        if let problem = Base64URL.decode(p, into: &payloadBytes) {
            throw TokenError.malformed("token payload is not valid base64url: it \(problem.message)")
        }
        var signatureBytes: [UInt8] = []
        if let problem = Base64URL.decode(s, into: &signatureBytes) {
            throw TokenError.malformed("token signature is not valid base64url: it \(problem.message)")
        }
        return Segments(headerDocument: doc, payload: payloadBytes, signature: signatureBytes, payloadRange: (dots.0 + 1)..<dots.1)
    }

    /// Refuses what people paste by mistake, with a hint: an Authorization scheme, white
    /// space, quotes, or a JWS JSON serialization.
    static func checkFraming(_ bytes: [UInt8]) throws {
        // "Bearer " / "Bearer\t" in any case, compared on bytes (no String is made).
        func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
        let bearer: [UInt8] = [0x62, 0x65, 0x61, 0x72, 0x65, 0x72]  // "bearer"; not zip(_:_:), whose
        // generic metadata costs a process ~1.4M instructions to build on first use
        if bytes.count >= 7, bearer.indices.allSatisfy({ lower(bytes[$0]) == bearer[$0] }), bytes[6] == 0x20 || bytes[6] == 0x09 {
            throw TokenError.malformed("token starts with \"Bearer \"; pass the token alone, without the Authorization scheme")
        }
        let first = bytes.first!, last = bytes.last!
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        if isSpace(first) || isSpace(last) {
            throw TokenError.malformed("token has leading or trailing white space; pass the token alone")
        }
        if first == UInt8(ascii: "\"") { throw TokenError.malformed("token is wrapped in quotes; pass the token alone") }
        if first == UInt8(ascii: "{") {
            throw TokenError.malformed("token is a JWS JSON serialization; only the compact form (header.payload.signature) is accepted")
        }
    }

    /// Header members that name where to find a key. The verifier's trusted keys are the only
    /// keys; a token never supplies its own (RFC 8725 §3.10 on key confusion).
    private static let keyOfferingMembers = ["jwk", "jku", "x5u", "x5c"]

    static func readHeader(_ doc: JSONDocument) throws -> JOSEHeader {
        guard let algMember = doc.member("alg") else { throw TokenError.malformed("token header has no \"alg\"") }
        guard let algName = JSONDocument.string(algMember) else { throw TokenError.malformed("token header \"alg\" is not a string") }
        let alg = try JWSAlgorithm.parse(algName)
        for name in keyOfferingMembers where doc.member(name) != nil {
            throw TokenError.malformed("token header offers its own key in \"\(name)\"; keys come only from the verifier's trusted set")
        }
        if let crit = doc.member("crit") {
            // RFC 7515 §4.1.11: every listed extension must be understood, or the JWS is invalid.
            guard case .array(let names) = JSONDocument.value(crit), !names.isEmpty, names.allSatisfy({ $0.stringValue != nil }) else {
                throw TokenError.malformed("token header \"crit\" must be a non-empty array of names")
            }
            let shown = names.compactMap(\.stringValue).map { "\"\($0.prefix(32))\"" }.joined(separator: ", ")
            throw TokenError.malformed("token header marks \(shown) critical (crit), which this verifier does not understand")
        }
        if let b64 = doc.member("b64") {
            switch JSONDocument.bool(b64) {
            case false?:
                throw TokenError.malformed("token header has \"b64\": false (RFC 7797 unencoded payload), which is not supported")
            case nil:
                throw TokenError.malformed("token header \"b64\" is not a boolean")
            case true?:
                break
            }
        }
        func optionalString(_ name: String) throws -> String? {
            guard let m = doc.member(name) else { return nil }
            guard let s = JSONDocument.string(m) else { throw TokenError.malformed("token header \"\(name)\" is not a string") }
            return s
        }
        return JOSEHeader(
            algorithm: alg, keyID: try optionalString("kid"), type: try optionalString("typ"),
            contentType: try optionalString("cty"), document: doc)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
