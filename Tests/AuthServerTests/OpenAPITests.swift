import Foundation
import Hummingbird
import JOSE
import OpenAPIKit
import Testing

@testable import AuthServer

/// `GET /openapi.json`: the OpenAPI 3.1 document built from the route table. Every route has a
/// shape and every shape a route (a route added without its documentation fails here); the
/// served bytes are the document built from the server's own rows. PyPI's
/// openapi-spec-validator and schemathesis check it further against a live server
/// (Tests/OpenAPI/check_openapi.py, `make openapi-test`).
@Suite("OpenAPI document", .serialized)
struct OpenAPITests {
    /// The rows of the server's route table.
    static func rows(of server: AuthServer) -> [RouteDescription] { RouteTable.descriptions }

    @Test("every route has a shape and every shape a route; the served document is the built one", arguments: StoreKind.available)
    func everyRouteDocumented(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let rows = Self.rows(of: s.server)
            #expect(rows.count == RouteShape.all.count)
            let missing = OpenAPIDocument.undocumented(rows)
            #expect(missing.routes.isEmpty, "routes without a shape: \(missing.routes)")
            #expect(missing.shapes.isEmpty, "shapes without a route: \(missing.shapes)")
            #expect(Set(rows.map(\.handler)).count == rows.count, "operation ids are unique")

            let served = try await s.call(.GET, "/openapi.json")
            #expect(served.status == 200 && served.header("content-type") == "application/json")
            let built = try OpenAPIDocument.encode(OpenAPIDocument.make(rows, config: s.server.config))
            #expect(Array(served.body.utf8) == built)

            // It reads back as an OpenAPI 3.1 document that passes OpenAPIKit's validation.
            let document = try JSONDecoder().decode(OpenAPI.Document.self, from: Data(served.body.utf8))
            #expect(document.openAPIVersion == .v3_1_1)
            try document.validate()
            #expect(document.paths.count == Set(rows.map(\.path)).count)
            let login = document.paths["/api/client/v2.0/app/{app}/auth/providers/{provider}/login"]?.pathItemValue?.post
            let statuses = Set((login?.responses.keys ?? []).map(\.rawValue))
            #expect(statuses.isSuperset(of: ["200", "400", "401", "403", "404", "409", "429", "502", "503"]), "\(statuses.sorted())")
        }
    }

    @Test("a route without a shape, and a shape without a route, are found")
    func undocumentedFound() {
        let rows = [
            RouteDescription(.get, "/healthz", bearer: .none), RouteDescription(.get, "/not/documented", bearer: .none),
        ]
        let missing = OpenAPIDocument.undocumented(rows)
        #expect(missing.routes == ["GET /not/documented"])
        #expect(missing.shapes.contains("GET /metrics") && !missing.shapes.contains("GET /healthz"))
    }

    @Test("every error name of a shape is one the server answers with")
    func errorNamesAreTheServers() {
        let oauth: Set<String> = ["invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type"]
        for (key, shape) in RouteShape.all {
            for name in shape.errors + shape.everyRoute {
                #expect(OpenAPIAnswers.statusOfName[name] != nil, "\(key): \(name)")
            }
            #expect(Set(shape.oauthErrors).isSubset(of: oauth), "\(key)")
        }
        #expect(OpenAPIAnswers.statusOfName["TooManyRequests"] == 429 && OpenAPIAnswers.statusOfName["UserDisabled"] == 403)
    }

    @Test("a refused bearer and an unknown app are documented on the routes that can answer them")
    func bearerAndAppErrors() {
        let profile = RouteDescription(.get, RouteTable.base + "/auth/profile", bearer: .access)
        let shape = RouteShape.all[RouteShape.key("GET", profile.path)]!
        #expect(OpenAPIAnswers.errorNames(profile, shape).contains("InvalidSession"))
        let location = RouteDescription(.get, RouteTable.base + "/app/:app/location", bearer: .none)
        let names = OpenAPIAnswers.errorNames(location, RouteShape.all[RouteShape.key("GET", location.path)]!)
        #expect(names.contains("AppNotFound") && !names.contains("InvalidSession"))
    }
}
