/// A method name an ``Authentication`` records, and the RFC 8176 `amr` value it stands for.
struct AMRValue: Sendable, Hashable {
    let method: String
    let value: String

    init(_ method: String, _ value: String) {
        self.method = method
        self.value = value
    }
}

/// What the ID token's `amr` says of a sign-in: the values the login methods
/// (``LoginMethod/amr``) and the second factors (``SecondFactor/amr``) declare in their own files.
enum AuthenticationMethods {
    /// Every method name with an `amr` value: the login methods in the registry's order, then the
    /// second factors. A name listed twice keeps its first value.
    static let table: [AMRValue] = LoginMethodRegistry.standard.methods.flatMap { $0.amr } + SecondFactors.standard.map { AMRValue($0.name, $0.amr) }

    /// The `amr` values of a sign-in by `methods` (in the order they proved it): each value once,
    /// in that order, then `mfa` when two or more values are listed. Methods without a value
    /// (`anon-user`, `api-key`) add none.
    static func amr(of methods: [String]) -> [String] {
        var out: [String] = []
        for method in methods {
            if let value = table.first(where: { $0.method == method })?.value, !out.contains(value) { out.append(value) }
        }
        return out.count >= 2 ? out + ["mfa"] : out
    }

    /// Method names whose ``amr(of:)`` gives back `amr` (`mfa` dropped), the first method of each value.
    static func methods(reproducing amr: [String]) -> [String] {
        amr.compactMap { value in table.first(where: { $0.value == value })?.method }
    }
}
