/// `tokentool verify` in a script or a health check runs once per token, so the process's
/// start-up is most of its cost (the target: the whole process within 1.5× of `openssl dgst
/// -verify`; docs/performance.md). swift-argument-parser spends ~14M instructions on reflection before a command
/// runs (callgrind: protocol-conformance lookups that scan every conformance record, and
/// metadata built from mangled names), more than loading the key and verifying together.
///
/// So the plain forms of `verify` are read here: `verify` followed by the long options and flags
/// of `Verify`, each option as two words (`--key FILE`), and one token. Anything else returns nil
/// and goes to ArgumentParser, which also owns help and every usage error: `--opt=value`, `--`,
/// a short or unknown option, a value or token that begins with `-` (standard input included),
/// a single-valued option or flag given twice, a `--now` that is not an integer, a missing or
/// second token, the word `help`. For what it accepts, the result equals `Verify.request` from
/// ArgumentParser; `VerifyFastPathTests` checks that on both paths.
extension VerifyRequest {
    init?<Arguments: Collection<String>>(fastPath arguments: Arguments) {
        guard arguments.first == "verify" else { return nil }
        var request = VerifyRequest(token: "")
        var token: String?
        var given = Set<String>()
        var rest = arguments.dropFirst()[...]
        while let word = rest.popFirst() {
            guard word.hasPrefix("-") else {
                guard token == nil, word != "help" else { return nil }
                token = word
                continue
            }
            guard given.insert(word).inserted || Self.repeatable.contains(word) else { return nil }
            switch word {
            case "--jws": request.jws = true; continue
            case "--json": request.json = true; continue
            default: break
            }
            guard let value = rest.popFirst(), !value.hasPrefix("-") else { return nil }
            switch word {
            case "--jwks": request.jwks.append(value)
            case "--key": request.keys.append(value)
            case "--alg": request.algorithms.append(value)
            case "--iss": request.issuers.append(value)
            case "--aud": request.audiences.append(value)
            case "--require": request.required.append(value)
            case "--secret-file": request.secretFile = value
            case "--kid": request.keyID = value
            case "--typ": request.type = value
            case "--leeway": request.leeway = value
            case "--now":
                guard let seconds = Int64(value) else { return nil }
                request.now = seconds
            default: return nil
            }
        }
        guard let token else { return nil }
        request.token = token
        self = request
    }

    /// The options ArgumentParser collects into arrays; every other option and flag may appear once.
    static let repeatable: Set<String> = ["--jwks", "--key", "--alg", "--iss", "--aud", "--require"]
    /// Every name the fast path reads (`VerifyFastPathTests` checks it against `Verify`'s help).
    static let fastPathNames: Set<String> = repeatable.union(["--secret-file", "--kid", "--typ", "--leeway", "--now", "--jws", "--json"])
}
