import CSodium

/// Passwords as Argon2id hashes in libsodium's encoded form (`$argon2id$v=19$m=…,t=…,p=1$salt$hash`),
/// which carries its own salt and cost, so a stored hash keeps verifying when the cost here changes.
public enum PasswordHash {
    /// Two passes over 19 MiB: the cost OWASP's password storage guidance names for Argon2id.
    /// libsodium's "interactive" level takes 64 MiB per login, a lot for a small daemon; the cost is
    /// paid once per client (the authenticator remembers a verified login for a while).
    static let passes: UInt64 = 2
    static let memoryBytes = 19 << 20

    /// The longest password taken: longer ones are refused rather than hashed (an input limit).
    public static let maximumLength = 1024

    /// The encoded hash of `password`, with a fresh random salt.
    public static func make(_ password: String) throws(CredentialError) -> String {
        precondition(Sodium.ready, "libsodium could not start")
        guard password.utf8.count <= maximumLength else { throw .tooLong }
        var out = [CChar](repeating: 0, count: aggregator_pwhash_str_bytes())
        let status = withBytes(of: password) { text, length in
            aggregator_pwhash_argon2id(&out, text, length, passes, memoryBytes)
        }
        guard status == 0 else { throw .outOfMemory }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` is the one `hash` (from `make`) was made of. Takes as long whatever the answer.
    public static func verify(_ password: String, against hash: String) -> Bool {
        precondition(Sodium.ready, "libsodium could not start")
        guard password.utf8.count <= maximumLength, hash.utf8.count < aggregator_pwhash_str_bytes() else { return false }
        // libsodium reads the hash as a buffer of the encoded size: give it one, NUL-padded.
        var encoded = Array(hash.utf8CString)
        encoded += [CChar](repeating: 0, count: aggregator_pwhash_str_bytes() - encoded.count)
        return withBytes(of: password) { text, length in crypto_pwhash_str_verify(encoded, text, length) == 0 }
    }

    /// The password's UTF-8 bytes and their count (a NUL inside a password is kept, not a terminator).
    private static func withBytes<T>(of password: String, _ body: (UnsafePointer<CChar>, UInt64) -> T) -> T {
        let bytes = Array(password.utf8CString)  // NUL-terminated: never an empty buffer
        return bytes.withUnsafeBufferPointer { body($0.baseAddress!, UInt64(bytes.count - 1)) }
    }
}

/// Why a secret could not be made.
public enum CredentialError: Error, Equatable, CustomStringConvertible {
    case tooLong
    case outOfMemory

    public var description: String {
        switch self {
        case .tooLong: "the password is longer than \(PasswordHash.maximumLength) bytes"
        case .outOfMemory: "not enough memory to hash the password"
        }
    }
}
