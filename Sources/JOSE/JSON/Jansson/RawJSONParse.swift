internal import CJansson

/// FOR BENCHMARKING ONLY (`tokentool bench`, the `raw-decode` row): jansson alone on a token's
/// header and claims: `json_loadb` with the flags JOSE parses with (duplicate names rejected),
/// then `json_decref`, and nothing else: no limits pre-scan, no base64url, no Swift values. Jansson is
/// the parser of headers and claims by design (docs/architecture.md), so this is the floor under every decode
/// and every verify, the way `raw-verify` is the floor of the signature check.
@_spi(Benchmark)
public struct RawJSONParse: Sendable {
    private let documents: [[UInt8]]

    /// - Parameters: the decoded header and claims bytes (not base64url).
    public init(header: [UInt8], claims: [UInt8]) {
        documents = [header, claims]
    }

    /// Parses and frees both documents; false if either is not a JSON object jansson accepts.
    public func parse() -> Bool {
        for document in documents {
            var error = json_error_t()
            let root = document.withUnsafeBytes { buffer in
                buffer.withMemoryRebound(to: CChar.self) { json_loadb($0.baseAddress, $0.count, JSONDocument.strictFlags, &error) }
            }
            guard let root else { return false }
            ctk_json_decref(root)
        }
        return true
    }
}
