import CSodium

/// libsodium, initialised once before any use (`sodium_init` seeds its random generator and picks
/// its implementations; it may be called again, but not concurrently with a first call).
enum Sodium {
    static let ready: Bool = sodium_init() >= 0

    /// `count` bytes from the kernel's random generator.
    static func randomBytes(_ count: Int) -> [UInt8] {
        precondition(ready, "libsodium could not start")
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
