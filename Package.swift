// swift-tools-version:6.1
import PackageDescription

// TOKENTOOL_CORE_ONLY=1 builds only the JOSE module and the token/key commands of tokentool,
// without the network and database dependencies: a one-minute build for crypto work and fuzzing.
let coreOnly = Context.environment["TOKENTOOL_CORE_ONLY"] == "1"

// Every target: Swift 6, imports internal unless marked `public import` (so no C type reaches a
// public signature), and `any` spelled out on existentials.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

var products: [Product] = [
    .library(name: "JOSE", targets: ["JOSE"]),
    .executable(name: "tokentool", targets: ["tokentool"]),
]
var dependencies: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
]
var targets: [Target] = [
    // C libraries: nothing but JOSE imports these.
    // libcrypto (Debian libssl-dev): the OpenSSL 3 headers Swift may use, and thread_keys.c (a load-time
    // constructor that orders OpenSSL's per-thread keys; see there).
    .target(name: "COpenSSL", linkerSettings: [.linkedLibrary("crypto")]),
    .systemLibrary(name: "CJansson", pkgConfig: "jansson", providers: [.apt(["libjansson-dev"])]),
    .target(name: "JOSE", dependencies: ["COpenSSL", "CJansson"], swiftSettings: strict),
    .testTarget(name: "JOSETests", dependencies: ["JOSE"], swiftSettings: strict),
    // The one harness of every test that runs the built tokentool (Tests/CLIHarness).
    .target(name: "CLIHarness", path: "Tests/CLIHarness", swiftSettings: strict),
    // TokenToolTests runs the built tokentool; it also imports the module to check the verify fast path.
    .testTarget(name: "TokenToolTests", dependencies: ["JOSE", "tokentool", "CLIHarness"], swiftSettings: strict),
]

if coreOnly {
    targets.append(
        .executableTarget(
            name: "tokentool",
            dependencies: ["JOSE", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            exclude: ["Identity", "Sessions"],
            swiftSettings: strict))
} else {
    products += [
        .library(name: "Identity", targets: ["Identity"]),
        .library(name: "Sessions", targets: ["Sessions"]),
        .library(name: "SessionStoreSQLite", targets: ["SessionStoreSQLite"]),
        .library(name: "SessionStorePostgres", targets: ["SessionStorePostgres"]),
        .library(name: "AuthMiddleware", targets: ["AuthMiddleware"]),
        .library(name: "AuthServer", targets: ["AuthServer"]),
    ]
    dependencies += [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // The OpenAPI 3.1 document of the server (`/openapi.json`), built as values, not hand-written JSON.
        // Without the default ExternalLoading trait: the document references nothing outside itself.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0", traits: []),
    ]
    targets += [
        .target(
            name: "Identity",
            dependencies: [
                "JOSE",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .target(
            name: "Sessions",
            dependencies: ["JOSE", "Identity", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        .target(
            name: "SessionStoreSQLite",
            dependencies: ["Sessions", .product(name: "SQLiteNIO", package: "sqlite-nio")],
            swiftSettings: strict),
        .target(
            name: "SessionStorePostgres",
            dependencies: ["Sessions", "Identity", .product(name: "PostgresNIO", package: "postgres-nio")],
            swiftSettings: strict),
        // The OpenID provider's records and rules below the routes: its clients, authorization
        // requests, login flows, codes and their store functions, the OAuth error (no HTTP).
        .target(name: "OIDCProvider", dependencies: ["JOSE", "Sessions"], swiftSettings: strict),
        // For resource servers: verifies our access tokens in a Hummingbird app (RFC 9068, RFC 6750).
        .target(
            name: "AuthMiddleware",
            dependencies: [
                "JOSE", "Identity", "Sessions",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The sign-in server (`tokentool serve`): App Services client protocol and OAuth 2.0 on Hummingbird.
        .target(
            name: "AuthServer",
            dependencies: [
                "JOSE", "Identity", "Sessions", "OIDCProvider", "SessionStoreSQLite", "SessionStorePostgres", "AuthMiddleware",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "tokentool",
            dependencies: [
                "JOSE", "Identity", "Sessions", "SessionStoreSQLite", "SessionStorePostgres", "AuthServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict + [.define("TOKENTOOL_FULL")]),
        // `bench-floor`: the bare Hummingbird route and the middleware behind the server's JWKS, the floors
        // of `make bench-server` (scripts/bench-server.sh); built in release for benchmarks only.
        .executableTarget(
            name: "bench-floor",
            dependencies: [
                "AuthMiddleware", "Identity",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // A stand-in identity provider (JWKS, token endpoints, Graph) on 127.0.0.1 for tests and docs.
        .target(
            name: "ProviderStandIn",
            dependencies: [
                "JOSE",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/ProviderStandIn",
            swiftSettings: strict),
        // `provider-standin --port N`: the stand-in as a process, for docs examples and manual runs.
        .executableTarget(
            name: "provider-standin",
            dependencies: ["JOSE", "ProviderStandIn"],
            path: "Tests/ProviderStandInTool",
            swiftSettings: strict),
        .testTarget(name: "IdentityTests", dependencies: ["Identity", "ProviderStandIn", "JOSE", "CLIHarness"], swiftSettings: strict),
        // The Swift examples of docs/library.md, compiled and run.
        .testTarget(
            name: "LibraryDocsTests",
            dependencies: ["JOSE", "Identity", "Sessions", "SessionStoreSQLite", "ProviderStandIn"],
            swiftSettings: strict),
        // What the store suites share (Tests/TestSupport): both stores (SQLite, a throwaway PostgreSQL),
        // a hand-moved clock, a child process runner.
        .target(
            name: "TestSupport",
            dependencies: ["JOSE", "Sessions", "SessionStoreSQLite", "SessionStorePostgres"],
            path: "Tests/TestSupport",
            swiftSettings: strict),
        .testTarget(
            name: "AuthMiddlewareTests",
            dependencies: [
                "AuthMiddleware", "Identity", "Sessions", "SessionStoreSQLite", "JOSE",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthServerTests",
            dependencies: [
                "AuthServer", "OIDCProvider", "Sessions", "SessionStoreSQLite", "SessionStorePostgres", "ProviderStandIn", "JOSE", "CLIHarness", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),  // the fault tests read the store's file
                // OpenAPITests builds the route table on a router and reads the served document back.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "SessionsTests",
            dependencies: ["Sessions", "SessionStoreSQLite", "SessionStorePostgres", "CLIHarness", "TestSupport"],
            swiftSettings: strict),
    ]
    // The error registry test enumerates the codes of every module.
    for target in targets where target.name == "TokenToolTests" {
        target.dependencies += ["Identity", "Sessions", "AuthServer"]
    }
}

let package = Package(
    name: "TokenTool",
    platforms: [.macOS(.v15)],
    products: products,
    dependencies: dependencies,
    targets: targets
)
