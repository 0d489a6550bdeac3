@testable import AuthServer
import Foundation
import JOSE
import Sessions
import Testing

/// The second factors are a registry (``SecondFactors``) that both doors read their proof through:
/// every `*Factor.swift` of Sources/AuthServer/Factors is one registered factor with its own name
/// and RFC 8176 `amr` value, and the App Services body carries exactly one factor's member.
/// (MFALoginTests, OIDCLoginPageTests and the passkey suites run the factors over HTTP.)
@Suite struct SecondFactorTests {
    @Test("every *Factor.swift of Sources/AuthServer/Factors is one registered factor; names and amr values as RFC 8176 says")
    func everyFileIsRegistered() throws {
        let files = try RegistryFiles.types(in: "Factors", suffix: "Factor.swift", protocolFile: "SecondFactor.swift")
        #expect(files == SecondFactors.standard.map { String(describing: $0) }.sorted())
        let names = SecondFactors.standard.map { $0.name }
        #expect(Set(names).count == names.count)
        // RFC 8176 §2: "otp" a one-time password, "hwk" proof of possession of a hardware-secured key.
        #expect(SecondFactors.standard.map { "\($0.name)=\($0.amr)" } == ["totp=otp", "passkey=hwk"])
        let members = SecondFactors.standard.flatMap { $0.bodyMembers.map(\.name) }
        #expect(Set(members).count == members.count && members.contains("code") && members.contains("passkey"))
    }

    static func body(_ members: JSONObject) -> SecondFactorInput { .body(RequestJSON(object: members)) }

    @Test("the App Services body: one factor's member, or missing_parameter / invalid_parameter naming them all")
    func appServicesBody() throws {
        let none = #expect(throws: TokenError.self) { try SecondFactors.proof(Self.body(["mfa_token": "t", "passkey": .null])) }
        #expect(none?.code == .missingParameter && none?.message == #""code", "recovery_code" or "passkey" is required"#)
        let two = #expect(throws: TokenError.self) { try SecondFactors.proof(Self.body(["code": "123456", "recovery_code": "abcd-efgh"])) }
        #expect(two?.code == .invalidParameter && two?.message == #"send one of "code", "recovery_code" and "passkey""#)
        let code = try #require(try SecondFactors.proof(Self.body(["code": "123456"])))
        #expect(code.factor == TOTPFactor.self && code.value as? MFACode == .totp("123456"))
        let recovery = try #require(try SecondFactors.proof(Self.body(["recovery_code": "abcd-efgh"])))
        #expect(recovery.value as? MFACode == .recovery("abcd-efgh"))
        #expect(throws: TokenError.self) { try SecondFactors.proof(Self.body(["passkey": "not an assertion"])) }
    }

    @Test("the hosted page's fields: an empty code is no proof; a code reads either way; a passkey field that is no assertion is refused")
    func pageFields() throws {
        #expect(try SecondFactors.proof(.fields(["mfa_token": "t", "code": "  "])) == nil)
        let code = try #require(try SecondFactors.proof(.fields(["code": " 123456 "])))
        #expect(code.factor == TOTPFactor.self && code.value as? MFACode == .either("123456"))
        #expect(throws: TokenError.self) { try SecondFactors.proof(.fields(["passkey": "{"])) }
    }
}
