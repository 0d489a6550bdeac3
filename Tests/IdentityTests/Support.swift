import Foundation
import Identity
import JOSE
import ProviderStandIn

/// A clock tests move by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var date: Date
    init(_ date: Date = Date()) { self.date = date }
    var now: Date { lock.withLock { date } }
    func advance(_ seconds: TimeInterval) { lock.withLock { date = date.addingTimeInterval(seconds) } }
    var clock: TokenClock { TokenClock { [self] in self.now } }
}

/// Starts a stand-in provider and a real AsyncHTTPClient transport, runs `body`, and shuts both down.
func withStandIn<T>(
    _ settings: ProviderStandIn.Settings = ProviderStandIn.Settings(),
    _ body: (ProviderStandIn, AsyncHTTPClientTransport) async throws -> T
) async throws -> T {
    let standIn = try await ProviderStandIn.start(settings: settings)
    let transport = AsyncHTTPClientTransport()
    do {
        let result = try await body(standIn, transport)
        try? await transport.shutdown()
        try? await standIn.shutdown()
        return result
    } catch {
        try? await transport.shutdown()
        try? await standIn.shutdown()
        throw error
    }
}

/// The code of the TokenError `body` throws, or nil when it does not throw one.
func errorCode(_ body: () async throws -> Void) async -> String? {
    do { try await body(); return nil } catch let e as TokenError { return e.code.rawValue } catch { return "not a TokenError: \(error)" }
}

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
