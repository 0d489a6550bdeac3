import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif
import JOSE

/// `tokentool jwks`: a JWK Set of the public halves of several keys, ready to publish.
struct JWKSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwks",
        abstract: "Print a JWK Set of the public halves of several key files.",
        discussion: """
            Each file may be PEM, DER, a JWK or a JWK Set; private keys contribute only their public half. \
            HMAC secrets (oct) are refused: publishing a JWKS would publish them. Two keys with the same kid \
            are refused, since a verifier could not choose between them.
            Exit codes: 0 printed, 2 usage or configuration error.
            """)

    @Option(help: ArgumentHelp("Write the JWKS to this file instead of standard output.", valueName: "FILE"))
    var out: String?

    @Argument(help: ArgumentHelp("Key files.", valueName: "key-file"))
    var files: [String]

    func run() throws {
        try configurationErrors {
            guard !files.isEmpty else { throw TokenError(.invalidInput, "give at least one key file") }
            var keys: [JWK] = []
            var seen: [String: String] = [:]
            for path in files {
                let contents = try KeyFile.read(path: path)
                if case .set(let s) = contents { warnAboutRefusedKeys(s, in: path) }
                for key in contents.keys {
                    guard key.keyType != .oct else {
                        throw TokenError(.invalidInput, "\(path) holds an HMAC secret (oct); a JWKS is public, so secrets never go in one")
                    }
                    if let kid = key.keyID {
                        if let other = seen[kid] {
                            throw TokenError(.invalidInput, "kid \"\(kid)\" appears in both \(other) and \(path); kids must be unique")
                        }
                        seen[kid] = path
                    }
                    keys.append(key.publicKey)
                }
            }
            let text = try JWKSet(keys: keys).jsonString(includePrivate: false, pretty: true) + "\n"
            if let out {
                try writeFile(out, text, private: false)
                print("wrote \(out): \(keys.count) public key\(keys.count == 1 ? "" : "s")")
            } else {
                print(text, terminator: "")
            }
        }
    }
}
