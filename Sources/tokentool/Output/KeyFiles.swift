import JOSE

/// A key and the file it came from, for messages. Files are read by ``JOSE/KeyFile``.
struct KeyFromFile {
    var key: JWK
    let source: String
}

/// Warns on stderr about keys a JWK Set refused (they stay unusable; stdout is untouched).
func warnAboutRefusedKeys(_ set: JWKSet, in path: String) {
    for (kid, error) in set.rejected {
        printError("warning: \(path): key \(kid.map { "\"\($0)\"" } ?? "without kid") refused: \(error.message)")
    }
}
