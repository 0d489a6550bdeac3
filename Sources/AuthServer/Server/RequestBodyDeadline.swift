import Hummingbird
import JOSE
import NIOCore

extension Request {
    /// Receives the whole body, at most `limit` bytes, within `seconds` of the call; the request
    /// then carries it in memory. A late body's reading is cancelled, which ends the connection's
    /// input: it closes once the answer is written.
    /// - Throws: `request_too_large` over the limit, `request_timeout` when late, `bad_request`
    ///   when the client closed the connection before the body ended.
    mutating func receiveBody(upTo limit: Int, within seconds: Int64) async throws {
        let body = self.body
        let buffer: ByteBuffer = try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                do { return try await body.collect(upTo: limit) } catch is NIOTooManyBytesError {
                    throw TokenError(.requestTooLarge, "the request body is larger than \(limit) bytes")
                } catch let e as TokenError {
                    throw e
                } catch {
                    // The client went away mid-body: its own doing, not the server's (and nobody reads the answer).
                    throw TokenError(.badRequest, "the connection closed before the request body ended")
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let buffer = first else {
                throw TokenError(.requestTimeout, "the request body did not arrive within \(seconds) s")
            }
            return buffer
        }
        self.body = RequestBody(buffer: buffer)
    }
}
