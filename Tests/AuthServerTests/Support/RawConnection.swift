import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to a test server on 127.0.0.1, for what an HTTP client will not do:
/// send a request's head and stall, drip its body, or hang up half-way.
struct RawConnection: Sendable {
    let fd: Int32

    /// Connects to the port of `baseURL` (`http://127.0.0.1:PORT`).
    static func open(_ baseURL: String) throws -> RawConnection {
        guard let port = URL(string: baseURL)?.port else { throw HarnessError("no port in \(baseURL)") }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw HarnessError("connect() failed: errno \(errno)")
        }
        return RawConnection(fd: fd)
    }

    /// The head of a JSON POST to `path` whose body will be `length` bytes.
    static func postHead(_ path: String, length: Int) -> String {
        "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
    }

    /// Sends `text` (ignoring a connection the server already closed).
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Reads what arrives for up to `seconds`, until the server closes the connection; `closed`
    /// says whether it did (end of stream or a reset).
    func read(for seconds: Double) async -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 0) > 0 {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n <= 0 { return (String(decoding: received, as: UTF8.self), true) }
                received += buffer[0..<n]
                continue
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    func close() { Glibc.close(fd) }
}
