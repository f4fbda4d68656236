import CSodium
import Foundation

/// API tokens: 32 random bytes written as 64 hex digits (no `=`, `+` or `/`, which some clients
/// split or mangle), stored only as their SHA-256 digest. A token has 256 bits of entropy, so a
/// fast digest is enough: nobody can guess one from its digest, unlike a password.
public enum SecretToken {
    /// A new token, to show once.
    public static func generate() -> String {
        Sodium.hex(Sodium.randomBytes(32))
    }

    /// Whether two secrets are equal, in a time that depends on their length only.
    public static func equal(_ a: String, _ b: String) -> Bool {
        let (left, right) = (Array(a.utf8), Array(b.utf8))
        guard left.count == right.count else { return false }
        return left.isEmpty || sodium_memcmp(left, right, left.count) == 0
    }

    /// Lower-case hex SHA-256 of `data` (what names a stored icon).
    public static func hexDigest(_ data: Data) -> String {
        sha256Hex([UInt8](data))
    }

    /// The digest stored in place of `token` and looked up when a client presents it.
    public static func digest(_ token: String) -> String {
        sha256Hex(Array(token.utf8))
    }

    private static func sha256Hex(_ bytes: [UInt8]) -> String {
        precondition(Sodium.ready, "libsodium could not start")
        var out = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256(&out, bytes, UInt64(bytes.count))
        return Sodium.hex(out)
    }
}

/// A keyed BLAKE2b digest with a key made at start and never stored: what a cache of verified
/// logins is keyed by, so the process never holds a password, and a memory dump gives nothing
/// that can be tried elsewhere.
public struct KeyedDigest: Sendable {
    private let key: [UInt8]

    public init() {
        key = Sodium.randomBytes(Int(crypto_generichash_KEYBYTES))
    }

    /// The digest of `parts`, each length-prefixed so that ("ab", "c") and ("a", "bc") differ.
    public func digest(_ parts: String...) -> [UInt8] {
        var message: [UInt8] = []
        for part in parts {
            let bytes = Array(part.utf8)
            withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { message.append(contentsOf: $0) }
            message.append(contentsOf: bytes)
        }
        var out = [UInt8](repeating: 0, count: Int(crypto_generichash_BYTES))
        crypto_generichash(&out, out.count, message, UInt64(message.count), key, key.count)
        return out
    }
}
