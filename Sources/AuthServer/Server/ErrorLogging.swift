import JOSE
import Logging

extension Logger.MetadataValue {
    /// An error as a log line names it: a `TokenError` by its code (`invalid_configuration`),
    /// never by its message (which may quote what a provider or client sent); anything else by
    /// its type.
    static func error(_ error: any Error) -> Logger.MetadataValue {
        if let e = error as? TokenError { return .string(e.code.rawValue) }
        return .string(String(describing: type(of: error)))
    }
}
