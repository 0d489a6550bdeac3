#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import JOSE

/// Writes one line to standard error, unbuffered (Swift 6 rejects the `stderr` global).
func printError(_ message: String) {
    writeAll(2, Array((message + "\n").utf8))
}

/// Writes every byte to a file descriptor, retrying short writes and EINTR; false on failure.
@discardableResult
func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var done = 0
    while done < bytes.count {
        let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return false }
        done += n
    }
    return true
}

/// Prints exactly one JSON object on standard output.
func printJSON(_ value: JSONValue) {
    print(value.jsonString)
}
