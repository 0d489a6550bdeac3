import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif
import JOSE

/// Output formats for keys.
enum KeyFormat: String, ExpressibleByArgument, CaseIterable {
    case jwk, pem
}

/// `tokentool keygen`: generates a signing key.
struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Generate a key: RSA, EC (P-256/384/521), OKP (Ed25519) or an HMAC secret (oct).",
        discussion: """
            The private key is written to --out FILE with mode 0600 (an existing file is never \
            overwritten without --force); --public-out FILE also writes the public half. A private key \
            is printed on standard output only with --print-private.
            Asymmetric keys get kid = their RFC 7638 thumbprint unless --kid is given. --alg pins the \
            key to one algorithm (written as the JWK "alg"; PEM cannot carry it).
            Defaults: rsa 2048 bits; ec P-256; okp Ed25519; oct 256 bits (more if --alg needs it).
            Exit codes: 0 written, 2 usage or configuration error.
            """)

    enum KeyKind: String, ExpressibleByArgument, CaseIterable { case rsa, ec, okp, oct }

    @Option(name: .customLong("type"), help: "Key type: rsa, ec, okp or oct.")
    var type: KeyKind

    @Option(help: "RSA modulus bits (2048 to 16384), or oct secret bits (at least 256, a multiple of 8).")
    var bits: Int?

    @Option(help: "EC or OKP curve: P-256, P-384, P-521 or Ed25519.")
    var curve: String?

    @Option(name: .customLong("alg"), help: ArgumentHelp("Pin the key to this JWS algorithm (JWK alg).", valueName: "ALG"))
    var algorithm: String?

    @Option(name: .customLong("kid"), help: ArgumentHelp("Key ID (default: the RFC 7638 thumbprint; none for oct).", valueName: "KID"))
    var keyID: String?

    @Option(help: "jwk or pem (pem cannot hold an oct secret, kid or alg).")
    var format: KeyFormat = .jwk

    @Option(help: ArgumentHelp("Write the private key here, mode 0600.", valueName: "FILE"))
    var out: String?

    @Option(name: .customLong("public-out"), help: ArgumentHelp("Also write the public half here (not for oct).", valueName: "FILE"))
    var publicOut: String?

    @Flag(name: .customLong("print-private"), help: "Print the private key on standard output.")
    var printPrivate = false

    @Flag(help: "Overwrite existing --out / --public-out files.")
    var force = false

    func run() throws {
        try configurationErrors {
            guard out != nil || printPrivate else {
                throw TokenError(
                    .invalidInput, "keygen does not print private keys unasked: pass --out FILE (written with mode 0600) or --print-private")
            }
            if format == .pem && type == .oct { throw TokenError(.invalidInput, "an oct secret has no PEM form; use --format jwk") }
            if publicOut != nil && type == .oct { throw TokenError(.invalidInput, "an oct secret has no public half; --public-out does not apply") }
            for path in [out, publicOut].compactMap({ $0 }) where !force && FileManager.default.fileExists(atPath: path) {
                throw TokenError(.invalidInput, "\(path) exists; remove it or pass --force")
            }
            let alg = try algorithm.map(parseAlgorithmFlag)
            var key = try generate(alg: alg)
            if let alg {
                key.algorithm = alg.rawValue
                guard key.allowedAlgorithms.contains(alg) else {
                    throw TokenError(.invalidInput, "--alg \(alg.rawValue) does not fit a \(key.summary.components(separatedBy: ",")[0])")
                }
            }
            key.keyID = try keyID ?? (type == .oct ? nil : key.thumbprint())

            let privateText = try render(key, includePrivate: true)
            if let out {
                try writeFile(out, privateText, private: true)
                print("wrote \(out) (mode 0600): \(key.summary)")
            }
            if let publicOut {
                try writeFile(publicOut, try render(key.publicKey, includePrivate: false), private: false)
                print("wrote \(publicOut): \(key.publicKey.summary)")
            }
            if printPrivate { print(privateText, terminator: privateText.hasSuffix("\n") ? "" : "\n") }
        }
    }

    private func render(_ key: JWK, includePrivate: Bool) throws -> String {
        switch format {
        case .jwk: return JSONValue.object(try key.jsonObject(includePrivate: includePrivate)).prettyString() + "\n"
        case .pem: return try key.pem(includePrivate: includePrivate)
        }
    }

    private func generate(alg: JWSAlgorithm?) throws -> JWK {
        let parsedCurve: JWK.Curve? = try curve.map { name in
            guard let c = JWK.Curve(rawValue: name) ?? JWK.Curve.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
                throw TokenError(.invalidInput, "--curve \"\(name.prefix(16))\" is not supported; expected P-256, P-384, P-521 or Ed25519")
            }
            return c
        }
        switch type {
        case .rsa:
            if curve != nil { throw TokenError(.invalidInput, "--curve does not apply to RSA keys") }
            if let alg, ![.rsaPKCS1, .rsaPSS].contains(alg.scheme) {
                throw TokenError(.invalidInput, "--alg \(alg.rawValue) is not an RSA algorithm")
            }
            return try JWK.generateRSA(bits: bits ?? 2048)
        case .ec:
            if bits != nil { throw TokenError(.invalidInput, "--bits does not apply to EC keys; choose --curve") }
            let c = parsedCurve ?? alg?.curve ?? .p256
            guard c != .ed25519 else { throw TokenError(.invalidInput, "Ed25519 is an OKP curve; use --type okp") }
            if let alg, alg.scheme != .ecdsa || alg.curve != c {
                throw TokenError(
                    .invalidInput, "--alg \(alg.rawValue) does not fit curve \(c.rawValue)\(alg.curve.map { " (it needs \($0.rawValue))" } ?? "")")
            }
            return try JWK.generate(curve: c)
        case .okp:
            if bits != nil { throw TokenError(.invalidInput, "--bits does not apply to OKP keys") }
            if let parsedCurve, parsedCurve != .ed25519 {
                throw TokenError(.invalidInput, "OKP keys use Ed25519; \(parsedCurve.rawValue) is an EC curve (--type ec)")
            }
            if let alg, alg.scheme != .eddsa {
                throw TokenError(.invalidInput, "--alg \(alg.rawValue) does not fit an Ed25519 key (it allows EdDSA and Ed25519)")
            }
            return try JWK.generate(curve: .ed25519)
        case .oct:
            if curve != nil { throw TokenError(.invalidInput, "--curve does not apply to oct secrets") }
            if let alg, alg.scheme != .hmac { throw TokenError(.invalidInput, "--alg \(alg.rawValue) is not an HMAC algorithm") }
            let b = bits ?? max(256, (alg?.hashLength ?? 32) * 8)
            guard b % 8 == 0, b >= 256, b <= 4096 * 8 else {
                throw TokenError(.invalidInput, "--bits \(b) for an oct secret must be a multiple of 8 from 256 to 32768")
            }
            return try JWK.generateSecret(bytes: b / 8)
        }
    }
}
