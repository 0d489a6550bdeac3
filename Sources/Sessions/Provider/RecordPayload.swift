import Foundation

/// The one codec of the versioned JSON payloads of one-time-token records (the OpenID
/// Provider's flows, codes, browser sessions and pending steps): sorted keys, no escaped
/// slashes, each payload type carrying its own version member.
public enum RecordPayload {
    /// `value` as the payload's JSON text.
    /// - Throws: what `JSONEncoder` throws for a value it cannot encode.
    public static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// The payload as `T`; `nil` when it is not `T`'s JSON.
    public static func decode<T: Decodable>(_ type: T.Type, _ payload: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(payload.utf8))
    }
}
