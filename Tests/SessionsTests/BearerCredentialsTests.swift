import Sessions
import Testing

/// The one `Authorization: Bearer` parser of the server and the middleware, at its edges.
@Suite struct BearerCredentialsTests {
    @Test(arguments: ["Bearer abc.DEF-_~+/==", "bearer abc.DEF-_~+/==", "BEARER abc.DEF-_~+/==", "bEaReR abc.DEF-_~+/=="])
    func schemeIsCaseInsensitive(header: String) {
        #expect(BearerCredentials.token(of: header) == .success("abc.DEF-_~+/=="))
    }

    @Test(arguments: ["Bearer  tok", "Bearer tok ", "Bearer \ttok\t", "Bearer   tok  \t "])
    func whiteSpaceAroundTheTokenIsSkipped(header: String) {
        #expect(BearerCredentials.token(of: header) == .success("tok"))
    }

    @Test func theLimitIsInclusive() {
        let atLimit = String(repeating: "a", count: BearerCredentials.maxTokenBytes)
        #expect(BearerCredentials.token(of: "Bearer " + atLimit) == .success(atLimit))
        #expect(BearerCredentials.token(of: "Bearer " + atLimit + "a") == .failure(.malformedToken))
        #expect(BearerCredentials.token(of: "Bearer " + String(repeating: "a", count: 1 << 20)) == .failure(.malformedToken))
    }

    @Test(arguments: ["Bearer", "Bearer ", "Bearer   ", "Bearer \t", "Bearer ===", "Bearer a b", "Bearer a=b", "Bearer \"tok\"", "Bearer tök"])
    func emptyOrNotAB64Token(header: String) {
        #expect(BearerCredentials.token(of: header) == .failure(.malformedToken))
    }

    @Test(arguments: ["", " ", "Basic dXNlcjpwYXNz", "Bearertok", "Bearer\ttok", "Token tok", "Bearer-x tok", " Bearer tok", "Bear tok"])
    func otherSchemesAreNotBearer(header: String) {
        #expect(BearerCredentials.token(of: header) == .failure(.notBearer))
    }
}
