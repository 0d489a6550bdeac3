// bench-floor: the HTTP floor of `make bench-server` (scripts/bench-server.sh).
//
//   bench-floor [--jwks URL --issuer ISS --audience APP]
//
// Listens on 127.0.0.1 (any free port) and prints `listening on http://127.0.0.1:PORT` once it accepts
// connections. `GET /floor` answers a fixed 2-byte body: a bare Hummingbird route, what this machine's
// HTTP stack can do with nothing of ours in the way. With `--jwks`, `GET /protected` sits behind
// AccessTokenMiddleware trusting that JWKS (normally the server's `/.well-known/jwks.json`), issuer
// and audience, and answers the caller's user id: a resource server, the middleware row of the table.
// SIGTERM or SIGINT stops it.
import AuthMiddleware
import Foundation
import Hummingbird
import Identity
import Logging
import NIOCore
import ServiceLifecycle

func option(_ name: String) -> String? {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

var logger = Logger(label: "bench-floor") { StreamLogHandler.standardError(label: $0) }
logger.logLevel = .warning
let router = Router(context: AuthenticatedRequestContext.self)
router.get("floor") { _, _ in "ok" }
let transport = AsyncHTTPClientTransport()
if let url = option("--jwks") {
    guard let issuer = option("--issuer"), let audience = option("--audience") else {
        FileHandle.standardError.write(Data("bench-floor: --jwks needs --issuer and --audience\n".utf8))
        exit(2)
    }
    let jwks = try RemoteJWKS(url: url, transport: transport)
    router.group("protected")
        .add(middleware: AccessTokenMiddleware(jwks: jwks, issuer: issuer, audience: audience))
        .get { _, context in context.access?.userID ?? "" }
}
let app = Application(
    router: router,
    configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: nil),
    onServerRunning: { channel in
        FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8))
    },
    logger: logger)
let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
try await group.run()
try await transport.shutdown()
