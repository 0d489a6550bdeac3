public import Foundation
import JOSE

/// One mail of the accounts flow: a confirmation link, a reset link, or a notice (someone tried
/// to register a taken address; the password was reset). What the webhook receives as JSON and
/// the mail command as an RFC 5322 message.
public struct AccountMail: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case confirm, reset, notice
    }

    public var kind: Kind
    public var app: String
    /// The address as registered.
    public var email: String
    /// Confirm and reset mails: the token, its id and the page link (which carries both).
    public var token: String?
    public var tokenID: String?
    public var url: String?
    /// Notices: `register` or `reset`.
    public var reason: String?

    /// A confirm or reset mail for `token`, linking to `PUBLIC_URL/app/{app}/confirm|reset?token=…&tokenId=…`.
    public static func link(_ token: AccountToken, app: String, publicURL: String) -> AccountMail {
        let kind: Kind = token.purpose == .confirm ? .confirm : .reset
        var base = publicURL
        while base.hasSuffix("/") { base.removeLast() }
        let page = "\(base)/app/\(percentEncoded(app))/\(kind.rawValue)?token=\(percentEncoded(token.token))&tokenId=\(percentEncoded(token.tokenID))"
        return AccountMail(kind: kind, app: app, email: token.email, token: token.token, tokenID: token.tokenID, url: page)
    }

    /// A notice without a token: `reason` is `register` (the address is taken) or `reset`.
    public static func notice(_ reason: String, app: String, email: String) -> AccountMail {
        AccountMail(kind: .notice, app: app, email: email, reason: reason)
    }

    /// The webhook body: `{"type","app","email","token","tokenId","url"}`, or for a notice
    /// `{"type","app","email","reason"}`; keys sorted.
    public var json: [UInt8] {
        var object: [String: String] = ["type": kind.rawValue, "app": app, "email": email]
        object["token"] = token
        object["tokenId"] = tokenID
        object["url"] = url
        object["reason"] = reason
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return Array(data)
    }

    /// An RFC 5322 message: To, From, Subject, Date, MIME headers, and a plain-text body with
    /// the link. The email was checked to hold no white space or control characters, so it
    /// cannot add a header.
    public func message(from sender: String, date: Date) -> String {
        let subject: String, body: String
        switch kind {
        case .confirm:
            subject = "Confirm your email address"
            body = "Open this link to confirm your email address:\r\n\r\n\(url ?? "")\r\n\r\nThe link works once, for 24 hours.\r\n"
        case .reset:
            subject = "Reset your password"
            body =
                "Open this link to choose a new password:\r\n\r\n\(url ?? "")\r\n\r\nThe link works once, for 30 minutes. If you did not ask for it, ignore this mail.\r\n"
        case .notice:
            subject = reason == "reset" ? "Your password was changed" : "Someone tried to register with your address"
            body =
                reason == "reset"
                ? "The password of your account was just reset, every device was signed out and your API keys were disabled\r\n(enable again those you still need).\r\nIf this was not you, reset it again now.\r\n"
                : "Someone tried to create an account with this address, which already has one.\r\nIf this was you, sign in or reset your password instead.\r\n"
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"  // RFC 5322 §3.3
        return [
            "From: \(sender)", "To: \(email)", "Subject: \(subject)", "Date: \(formatter.string(from: date))",
            "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit", "", body,
        ].joined(separator: "\r\n")
    }

    /// `s` with every character but RFC 3986 §2.3's unreserved ones percent-encoded as UTF-8 (the
    /// otpauth URI of ``TOTP`` uses it too).
    static func percentEncoded(_ s: String) -> String {
        s.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")) ?? ""
    }
}
