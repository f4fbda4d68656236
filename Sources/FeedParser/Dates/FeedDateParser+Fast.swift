extension FeedDateParser {
    /// The two forms nearly every feed uses, read straight from the bytes: RFC 1123
    /// (`Sun, 06 Nov 1994 08:49:37 GMT` or `+0000`) and RFC 3339 (`2003-12-31T10:14:55.5-08:00`).
    /// Anything else (or anything odd) returns nil and goes through the general parsers, which
    /// give the same answer for these forms, only slower.
    static func fastPath(_ text: String) -> Int64? {
        var copy = text
        return copy.withUTF8 { bytes -> Int64? in
            if bytes.count >= 20, bytes[4] == UInt8(ascii: "-") { return rfc3339Fast(bytes) }
            if bytes.count >= 29, bytes[3] == UInt8(ascii: ",") { return rfc1123Fast(bytes) }
            return nil
        }
    }

    @inline(__always)
    private static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for index in start..<start + count {
            let digit = Int(bytes[index]) - 48
            guard digit >= 0 && digit <= 9 else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    private static func rfc3339Fast(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let year = digits(b, 0, 4), b[7] == UInt8(ascii: "-"), let month = digits(b, 5, 2),
              let day = digits(b, 8, 2), b[10] == UInt8(ascii: "T"), let hour = digits(b, 11, 2),
              b[13] == UInt8(ascii: ":"), let minute = digits(b, 14, 2), b[16] == UInt8(ascii: ":"),
              let second = digits(b, 17, 2) else { return nil }
        var index = 19
        if index < b.count, b[index] == UInt8(ascii: ".") {
            index += 1
            while index < b.count, (48...57).contains(b[index]) { index += 1 }
        }
        var offsetMinutes = 0
        if index == b.count - 1, b[index] == UInt8(ascii: "Z") {
            offsetMinutes = 0
        } else if index == b.count - 6, b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-"),
                  let zoneHours = digits(b, index + 1, 2), b[index + 3] == UInt8(ascii: ":"),
                  let zoneMinutes = digits(b, index + 4, 2) {
            offsetMinutes = (zoneHours * 60 + zoneMinutes) * (b[index] == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        let time = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard time.isValid else { return nil }
        return time.secondsSinceEpoch - Int64(offsetMinutes) * 60
    }

    private static let monthNames: [UInt32: Int] = {
        var table: [UInt32: Int] = [:]
        for (name, number) in months {
            let bytes = Array(name.utf8)
            table[UInt32(bytes[0]) << 16 | UInt32(bytes[1]) << 8 | UInt32(bytes[2])] = number
        }
        return table
    }()

    private static func rfc1123Fast(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        // "Sun, 06 Nov 1994 08:49:37 GMT" — fixed columns, as RFC 1123 and almost every feed writes it.
        guard b[4] == 0x20, let day = digits(b, 5, 2), b[7] == 0x20, b[11] == 0x20,
              let year = digits(b, 12, 4), b[16] == 0x20, let hour = digits(b, 17, 2), b[19] == UInt8(ascii: ":"),
              let minute = digits(b, 20, 2), b[22] == UInt8(ascii: ":"), let second = digits(b, 23, 2),
              b[25] == 0x20 else { return nil }
        let dayName = String(decoding: UnsafeBufferPointer(rebasing: b[0..<3]), as: UTF8.self).lowercased()
        let key = UInt32(b[8] | 0x20) << 16 | UInt32(b[9] | 0x20) << 8 | UInt32(b[10] | 0x20)
        guard dayNames.contains(dayName), let month = monthNames[key] else { return nil }
        let zoneLength = b.count - 26
        var offsetMinutes: Int
        if zoneLength == 3, (b[26] | 0x20, b[27] | 0x20, b[28] | 0x20) == (0x67, 0x6D, 0x74) {  // GMT
            offsetMinutes = 0
        } else if zoneLength == 5, b[26] == UInt8(ascii: "+") || b[26] == UInt8(ascii: "-"),
                  let zoneHours = digits(b, 27, 2), let zoneMinutes = digits(b, 29, 2) {
            offsetMinutes = (zoneHours * 60 + zoneMinutes) * (b[26] == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        let time = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard time.isValid else { return nil }
        return time.secondsSinceEpoch - Int64(offsetMinutes) * 60
    }
}
