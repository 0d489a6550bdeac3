import JOSE

extension SessionManager {
    /// Who asks for a revocation (RFC 7009 §2.1).
    public enum RevokingClient: Sendable, Hashable {
        /// A client the server authenticated (HTTP Basic of a configured client): it may end
        /// any session.
        case authenticated
        /// A public client naming itself by `client_id` (an app id): it may end only the
        /// sessions issued to it.
        case publicClient(String)
    }
}
