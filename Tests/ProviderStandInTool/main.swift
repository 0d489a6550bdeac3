import Foundation
import JOSE
import ProviderStandIn

// provider-standin [--port N] [--write-apple-key FILE] [--jwks-max-age SECONDS]
// Serves the stand-in providers on 127.0.0.1 until killed; prints one JSON line describing them.
var port = 0
var appleKeyFile: String?
var settings = ProviderStandIn.Settings()
var args = CommandLine.arguments.dropFirst().makeIterator()
while let arg = args.next() {
    switch arg {
    case "--port": port = Int(args.next() ?? "") ?? -1
    case "--write-apple-key": appleKeyFile = args.next()
    case "--jwks-max-age": settings.jwksMaxAge = Int(args.next() ?? "") ?? 3600
    default:
        FileHandle.standardError.write(Data("usage: provider-standin [--port N] [--write-apple-key FILE] [--jwks-max-age SECONDS]\n".utf8))
        exit(2)
    }
}
guard (0...65535).contains(port) else {
    FileHandle.standardError.write(Data("error: --port takes 0...65535\n".utf8))
    exit(2)
}
let standIn = try await ProviderStandIn.start(port: port, settings: settings)
if let appleKeyFile {
    let pem = try standIn.appleClientSecretKey.pem(includePrivate: true)
    _ = FileManager.default.createFile(atPath: appleKeyFile, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o600])
}
let s = standIn.settings
let info: JSONObject = [
    "base_url": .string(standIn.baseURL),
    "google": .object([
        "client_id": .string(s.googleClientID), "client_secret": .string(s.googleClientSecret), "jwks": .string(standIn.googleJWKSURL),
        "token_url": .string(standIn.googleTokenURL), "code": "standin-google-code",
    ]),
    "apple": .object([
        "client_id": .string(s.appleClientID), "web_client_id": .string(s.appleWebClientID), "team_id": .string(s.appleTeamID),
        "key_id": .string(s.appleKeyID),
        "jwks": .string(standIn.appleJWKSURL), "token_url": .string(standIn.appleTokenURL), "revoke_url": .string(standIn.appleRevokeURL),
        "code": "standin-apple-code",
    ]),
    "facebook": .object([
        "app_id": .string(s.facebookAppID), "app_secret": .string(s.facebookAppSecret), "graph_url": .string(standIn.graphURL),
        "jwks": .string(standIn.facebookJWKSURL), "access_token": "standin-facebook-user-token",
        "foreign_app_access_token": "standin-foreign-app-token",
    ]),
    "custom": .object(["iss": .string(s.customIssuer), "aud": .string(s.customAudience), "jwks": .string(standIn.customJWKSURL)]),
    "mint": .string(standIn.baseURL + "/_standin/token/{google|apple|facebook|custom}?claim=value"),
]
FileHandle.standardOutput.write(Data((JSONValue.object(info).jsonString + "\n").utf8))
while true { try await Task.sleep(nanoseconds: 3_600_000_000_000) }
