import Foundation
import Identity

extension ServerConfig {
    /// `passkeys`: the WebAuthn relying party of every app's passkeys. `rp_id` defaults to
    /// `public_url`'s host and must be that host or a domain it ends in; the accepted origins are
    /// `public_url`'s origin and `origins` (each `scheme://host[:port]`, its host under `rp_id`);
    /// `user_verification` is `required` (the default), `preferred` or `discouraged`.
    static func readPasskeys(_ top: inout ConfigObject, publicURL: String) throws -> WebAuthnRelyingParty {
        guard let own = origin(of: publicURL) else { throw top.error("public_url", "has no origin") }
        var party = WebAuthnRelyingParty(id: own.host, origins: [own.origin])
        guard var p = try top.object("passkeys") else { return party }
        if let id = try p.string("rp_id") {
            let rp = id.lowercased()
            guard !rp.isEmpty, own.host == rp || own.host.hasSuffix("." + rp) else {
                throw p.error("rp_id", "must be public_url's host (\(own.host)) or a domain it ends in")
            }
            party.id = rp
        }
        for text in try p.strings("origins") ?? [] {
            guard let o = origin(of: text), o.origin == text, o.host == party.id || o.host.hasSuffix("." + party.id) else {
                throw p.error("origins", "\"\(text.prefix(64))\" is not an origin (scheme://host[:port]) on \(party.id)")
            }
            party.origins.insert(text)
        }
        if let uv = try p.string("user_verification") {
            guard let value = WebAuthnRelyingParty.UserVerification(rawValue: uv) else {
                throw p.error("user_verification", "must be required, preferred or discouraged")
            }
            party.userVerification = value
        }
        try p.finish()
        return party
    }

    /// A URL's origin as a browser serializes it (the default port left out) and its host.
    private static func origin(of url: String) -> (origin: String, host: String)? {
        guard let u = URLComponents(string: url), let scheme = u.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = u.host?.lowercased(), !host.isEmpty
        else { return nil }
        let port = u.port.flatMap { $0 == (scheme == "https" ? 443 : 80) ? nil : $0 }
        return (scheme + "://" + host + (port.map { ":\($0)" } ?? ""), host)
    }
}
