import Foundation
import JOSE

/// Policy for issuing, rotating and verifying token pairs: the settings of one app
/// (``AppSessionPolicy``) and of its store (``SessionServiceConfiguration``) in one, for a library
/// or a command that serves one app. Each setting reads and writes the part it belongs to.
///
/// ```swift
/// var config = SessionConfiguration(issuer: "https://auth.example.com", audience: "https://api.example.com")
/// config.accessTokenLifetime = 900
/// let sessions = SessionManager(store: store, configuration: config)
/// ```
@dynamicMemberLookup
public struct SessionConfiguration: Sendable {
    /// The store-wide part: issuer, signing algorithm, master key, leeway, clock, key caching.
    public var service: SessionServiceConfiguration
    /// The app's part: audience, client id, app, lifetimes, reuse grace.
    public var policy: AppSessionPolicy

    public init(issuer: String, audience: String, defaultClientID: String = "tokentool") {
        self.init(
            service: SessionServiceConfiguration(issuer: issuer), policy: AppSessionPolicy(audience: audience, defaultClientID: defaultClientID))
    }

    /// One app's settings on a store's shared ones: what a ``SessionManager`` made from a
    /// ``SessionService`` and an ``AppSessionPolicy`` works with.
    public init(service: SessionServiceConfiguration, policy: AppSessionPolicy) {
        self.service = service
        self.policy = policy
    }

    /// A setting of the app's part by its name (`config.audience`, `config.reuseGraceInterval`);
    /// the two parts name no setting alike.
    public subscript<T>(dynamicMember setting: WritableKeyPath<AppSessionPolicy, T>) -> T {
        get { policy[keyPath: setting] }
        set { policy[keyPath: setting] = newValue }
    }

    /// A setting of the store-wide part by its name (`config.masterKey`, `config.clock`).
    public subscript<T>(dynamicMember setting: WritableKeyPath<SessionServiceConfiguration, T>) -> T {
        get { service[keyPath: setting] }
        set { service[keyPath: setting] = newValue }
    }

    /// ``AppSessionPolicy/accessTokenLifetime``; setting it sets the service's
    /// ``SessionServiceConfiguration/longestAccessTokenLifetime`` too (one app, one lifetime).
    public var accessTokenLifetime: Int64 {
        get { policy.accessTokenLifetime }
        set {
            policy.accessTokenLifetime = newValue
            service.longestAccessTokenLifetime = newValue
        }
    }

    /// - Throws: `invalid_configuration` as ``AppSessionPolicy/validate()`` and
    ///   ``SessionServiceConfiguration/validate()`` do.
    public func validate() throws {
        try policy.validate()
        try service.validate()
    }

    var now: Int64 { service.now }
}
