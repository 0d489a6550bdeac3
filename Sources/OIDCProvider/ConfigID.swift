import Foundation

/// The one rule of the config's ids (an app's, a client's): 1…64 ASCII letters, digits, `-`, `_`, `.`.
package enum ConfigID {
    package static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }
    }
}
