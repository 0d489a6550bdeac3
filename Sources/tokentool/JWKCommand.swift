import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif
import JOSE

/// `tokentool jwk`: converts one key between PEM and JWK, or prints its thumbprint.
struct JWKCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwk",
        abstract: "Convert a key between PEM and JWK, or print its RFC 7638 thumbprint.",
        discussion: """
            Reads PEM (SPKI, PKCS#1 RSA public key, X.509 certificate, PKCS#8 or traditional private key), \
            DER or a JWK. By default PEM/DER becomes a JWK and a JWK becomes PEM; --format chooses. \
            A private key is written only with --out FILE (mode 0600) or printed with --print-private; \
            --public converts just the public half.
            Exit codes: 0 done, 2 usage or configuration error.
            """)

    @Flag(help: "Convert only the public half.")
    var `public` = false

    @Flag(help: "Print the RFC 7638 thumbprint (SHA-256, base64url) and nothing else.")
    var thumbprint = false

    @Option(help: "Output format: jwk or pem (default: the other one).")
    var format: KeyFormat?

    @Option(name: .customLong("kid"), help: ArgumentHelp("Set the JWK kid.", valueName: "KID"))
    var keyID: String?

    @Option(name: .customLong("alg"), help: ArgumentHelp("Set the JWK alg (pins the key to one algorithm).", valueName: "ALG"))
    var algorithm: String?

    @Option(help: ArgumentHelp("Write to this file (mode 0600 for a private key) instead of standard output.", valueName: "FILE"))
    var out: String?

    @Flag(name: .customLong("print-private"), help: "Allow printing a private key on standard output.")
    var printPrivate = false

    @Flag(help: "Overwrite an existing --out file.")
    var force = false

    @Argument(help: ArgumentHelp("A PEM, DER or JWK file (- for standard input).", valueName: "pem-or-jwk-file"))
    var file: String

    func run() throws {
        try configurationErrors {
            var key = try KeyFile.readSingle(path: file)
            if thumbprint {
                print(try key.thumbprint())
                return
            }
            if self.public {
                guard key.keyType != .oct else { throw TokenError(.invalidInput, "an oct secret has no public half") }
                key = key.publicKey
            }
            if let keyID { key.keyID = keyID }
            if let algorithm {
                let alg = try parseAlgorithmFlag(algorithm)
                key.algorithm = alg.rawValue
                guard key.allowedAlgorithms.contains(alg) else {
                    throw TokenError(.invalidInput, "--alg \(alg.rawValue) does not fit this key (\(key.summary.components(separatedBy: ",")[0]))")
                }
            }
            let inputIsJSON =
                (try? readFileBytes(file, limit: 1 << 20))?.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{")
            let target = format ?? (inputIsJSON && key.keyType != .oct ? .pem : .jwk)
            let text: String
            switch target {
            case .jwk: text = JSONValue.object(try key.jsonObject(includePrivate: key.isPrivate)).prettyString() + "\n"
            case .pem:
                guard key.keyType != .oct else { throw TokenError(.invalidInput, "an oct secret has no PEM form; use --format jwk") }
                text = try key.pem(includePrivate: key.isPrivate)
            }
            if let out {
                if !force && FileManager.default.fileExists(atPath: out) {
                    throw TokenError(.invalidInput, "\(out) exists; remove it or pass --force")
                }
                try writeFile(out, text, private: key.isPrivate)
                print("wrote \(out)\(key.isPrivate ? " (mode 0600)" : ""): \(key.summary)")
            } else {
                guard !key.isPrivate || printPrivate else {
                    throw TokenError(
                        .invalidInput,
                        "\(file) holds a \(key.keyType == .oct ? "secret" : "private key"); pass --public for the public half, --out FILE (mode 0600), or --print-private"
                    )
                }
                print(text, terminator: "")
            }
        }
    }
}
