extension AppConfig {
    /// `op_session_ttl`'s default: 12 hours.
    public static let defaultOPSessionTTL: Int64 = 12 * 3600
    /// What `op_session_ttl` may be: a minute to 30 days.
    static let opSessionTTLRange: ClosedRange<Int64> = 60...(30 * 86_400)

    /// Reads `op_session_ttl`: how long a browser stays signed in to the OpenID Provider after it
    /// signed in on the hosted login page (an OP session's expiry is its sign-in time plus this).
    /// - Throws: `invalid_configuration` naming the member when it is no duration of 60s…30d.
    static func readOPSessionTTL(_ o: inout ConfigObject) throws -> Int64 {
        try o.duration("op_session_ttl", range: opSessionTTLRange) ?? defaultOPSessionTTL
    }
}
