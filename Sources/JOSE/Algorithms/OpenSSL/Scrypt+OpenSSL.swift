internal import COpenSSL

extension Scrypt {
    static func deriveWithOpenSSL(password: [UInt8], salt: [UInt8], parameters: Parameters, length: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        // OpenSSL refuses a derivation that needs more than maxmem; allow exactly what these
        // parameters take, plus the p × 128 × r block buffer and slack.
        let maxmem = UInt64(parameters.memoryBytes) + UInt64(parameters.p * 128 * parameters.r) + (1 << 20)
        ERR_clear_error()
        let ok = password.withUnsafeBufferPointer { pw in
            salt.withUnsafeBufferPointer { s in
                out.withUnsafeMutableBufferPointer { o in
                    ctk_scrypt(
                        pw.baseAddress, pw.count, s.baseAddress, s.count, UInt64(1) << UInt64(parameters.logN),
                        UInt32(parameters.r), UInt32(parameters.p), maxmem, o.baseAddress, o.count)
                }
            }
        }
        guard ok == 1 else { throw OpenSSLError.fail(.internalError, "scrypt (\(parameters)) failed") }
        return out
    }
}
