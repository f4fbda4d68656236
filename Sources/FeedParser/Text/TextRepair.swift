import Glibc

/// Repairs two encoding accidents common in real feeds, value by value.
enum TextRepair {
    /// cp1252's characters for the C1 control range U+0080–U+009F (nil where cp1252 has none).
    private static let windows1252: [UInt32?] = [
        0x20AC, nil, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, nil,
        0x017D, nil, nil, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, nil, 0x017E, 0x0178,
    ]

    /// C1 controls become the cp1252 characters they were meant to be, and UTF-8 read as
    /// Latin-1 (`cafÃ©`) is decoded once more (`café`).
    static func repair(_ text: String) -> String {
        // Both accidents only produce characters up to U+00FF, whose UTF-8 lead bytes are C2 and C3:
        // memchr (vectorised) finds them; most values have neither, or neither in a suspect pair.
        var hasC1Control = false
        var mayBeMojibake = false
        var copy = text
        copy.withUTF8 { utf8 in
            // A C1 control: C2 80–9F.
            hasC1Control = Self.contains(lead: 0xC2, in: utf8) { index in index + 1 < utf8.count && utf8[index + 1] <= 0x9F }
            // "Ã©": a Latin-1 lead character (C3 82–B4) followed by a continuation-range one (C2 80–BF).
            mayBeMojibake = Self.contains(lead: 0xC3, in: utf8) { index in
                index + 3 < utf8.count && (0x82...0xB4).contains(utf8[index + 1]) && utf8[index + 2] == 0xC2
                    && (0x80...0xBF).contains(utf8[index + 3])
            }
        }
        guard hasC1Control || mayBeMojibake else { return text }
        // A character above U+00FF (lead byte C4 or higher) means this is not Latin-1 mojibake.
        let hasWideCharacter = text.utf8.contains { $0 >= 0xC4 }
        guard hasC1Control || (mayBeMojibake && !hasWideCharacter) else { return text }
        var result = text
        if mayBeMojibake && !hasWideCharacter, let repaired = undoMojibake(result) { result = repaired }
        if result.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) }) {
            var scalars = String.UnicodeScalarView()
            for scalar in result.unicodeScalars {
                if (0x80...0x9F).contains(scalar.value), let mapped = windows1252[Int(scalar.value - 0x80)],
                   let replacement = Unicode.Scalar(mapped) {
                    scalars.append(replacement)
                } else {
                    scalars.append(scalar)
                }
            }
            result = String(scalars)
        }
        return result
    }

    /// Whether some `lead` byte in `utf8` passes `test` (given its index).
    private static func contains(lead: UInt8, in utf8: UnsafeBufferPointer<UInt8>, where test: (Int) -> Bool) -> Bool {
        guard let start = utf8.baseAddress else { return false }
        var offset = 0
        while offset < utf8.count, let hit = memchr(start + offset, Int32(lead), utf8.count - offset) {
            let index = UnsafeRawPointer(hit) - UnsafeRawPointer(start)
            if test(index) { return true }
            offset = index + 1
        }
        return false
    }

    /// The text decoded again when all its characters fit in Latin-1 and those bytes are valid UTF-8
    /// (`repair` has ruled out characters above U+00FF by their lead bytes already).
    private static func undoMojibake(_ text: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var sawHighByte = false
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF else { return nil }
            if scalar.value >= 0x80 { sawHighByte = true }
            bytes.append(UInt8(scalar.value))
        }
        guard sawHighByte else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
