import FoundationEssentials

extension FeedDateParser {
    // MARK: - Partial ISO 8601: "20030610", "03-12-31", "2003335", "-0312", with an optional time

    /// The date shapes tried in order (greedy first); Y = year digit, M month, D day, O ordinal day.
    private static let isoShapes: [[ISOPiece]] = [
        [.year4, .optionalDash, .month, .optionalDash, .day],
        [.year4, .dash, .literalZero, .month, .optionalDash, .day],
        [.year4, .dash, .month],
        [.year4, .optionalDash, .ordinal],
        [.year2, .optionalDash, .month, .optionalDash, .day],
        [.year2, .optionalDash, .ordinal],
        [.year4],
        [.dash, .year2, .optionalDash, .month],
    ]

    private enum ISOPiece { case year4, year2, month, day, ordinal, dash, optionalDash, literalZero }

    static func iso8601(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        for shape in isoShapes {
            guard var fields = match(shape, in: bytes) else { continue }
            // A month-less, ordinal-less match would need the current month: never guess from the clock.
            guard fields.month != nil || fields.ordinal != nil else { continue }
            fields.readTime(from: bytes)
            var civil = CivilTime(year: fields.year, month: fields.month ?? 1,
                                  day: fields.ordinal ?? fields.day ?? 1,
                                  hour: fields.hour, minute: fields.minute, second: fields.second)
            civil.minute -= fields.offsetMinutes
            return civil.secondsSinceEpoch
        }
        return nil
    }

    private struct ISOFields {
        var year = 0
        var month: Int?
        var day: Int?
        var ordinal: Int?
        var hour = 0, minute = 0, second = 0
        var offsetMinutes = 0
        var end = 0

        /// Reads `[T]HH:MM[:SS][.fff][±HH[:MM]|Z]` right after the date, if it is there.
        mutating func readTime(from bytes: [UInt8]) {
            var index = end
            if index < bytes.count, bytes[index] == UInt8(ascii: "T") { index += 1 }
            func digits(_ count: Int, at position: Int) -> Int? {
                guard position + count <= bytes.count else { return nil }
                var value = 0
                for byte in bytes[position..<position + count] {
                    guard (48...57).contains(byte) else { return nil }
                    value = value * 10 + Int(byte - 48)
                }
                return value
            }
            guard let hour = digits(2, at: index), index + 2 < bytes.count, bytes[index + 2] == UInt8(ascii: ":"),
                  let minute = digits(2, at: index + 3) else { return }
            self.hour = hour
            self.minute = minute
            index += 5
            if index < bytes.count, bytes[index] == UInt8(ascii: ":"), let second = digits(2, at: index + 1) {
                self.second = second
                index += 3
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                var next = index + 1
                while next < bytes.count, (48...57).contains(bytes[next]) { next += 1 }
                if next > index + 1 { index = next }
            }
            guard index < bytes.count else { return }
            let sign = bytes[index]
            if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), let zoneHours = digits(2, at: index + 1) {
                var zoneMinutes = 0
                if index + 3 < bytes.count, bytes[index + 3] == UInt8(ascii: ":"), let minutes = digits(2, at: index + 4) {
                    zoneMinutes = minutes
                }
                offsetMinutes = (zoneHours * 60 + zoneMinutes) * (sign == UInt8(ascii: "-") ? -1 : 1)
            }
        }
    }

    private static func match(_ shape: [ISOPiece], in bytes: [UInt8]) -> ISOFields? {
        var fields = ISOFields()
        var index = 0
        func number(_ count: Int, first allowed: ClosedRange<UInt8> = 48...57) -> Int? {
            guard index + count <= bytes.count, allowed.contains(bytes[index]) else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += count
            return value
        }
        for piece in shape {
            switch piece {
            case .year4:
                guard let year = number(4) else { return nil }
                fields.year = year
            case .year2:
                // ISO 8601 reads two-digit years in the current century, as feedparser does.
                guard let year = number(2) else { return nil }
                fields.year = 2000 + year
            case .month:
                guard let month = number(2, first: 48...49) else { return nil }
                fields.month = month
            case .day:
                guard let day = number(2, first: 48...51) else { return nil }
                fields.day = day
            case .ordinal:
                guard let ordinal = number(3, first: 48...51) else { return nil }
                fields.ordinal = ordinal
            case .dash:
                guard index < bytes.count, bytes[index] == UInt8(ascii: "-") else { return nil }
                index += 1
            case .optionalDash:
                if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            case .literalZero:
                guard index < bytes.count, bytes[index] == UInt8(ascii: "0") else { return nil }
                index += 1
            }
        }
        fields.end = index
        return fields
    }

    // MARK: - Greek and Hungarian month and day names

    private static let greekMonths: [String: String] = [
        "Ιαν": "Jan", "Φεβ": "Feb", "Μάώ": "Mar", "Μαώ": "Mar", "Απρ": "Apr", "Μάι": "May", "Μαϊ": "May",
        "Μαι": "May", "Ιούν": "Jun", "Ιον": "Jun", "Ιούλ": "Jul", "Ιολ": "Jul", "Αύγ": "Aug", "Αυγ": "Aug",
        "Σεπ": "Sep", "Οκτ": "Oct", "Νοέ": "Nov", "Νοε": "Nov", "Δεκ": "Dec",
    ]
    private static let greekDays: [String: String] = [
        "Κυρ": "Sun", "Δευ": "Mon", "Τρι": "Tue", "Τετ": "Wed", "Πεμ": "Thu", "Πασ": "Fri", "Σαβ": "Sat",
    ]

    /// "Κυρ, 11 Ιούλ 2004 12:00:00 EST": Greek names translated, then read as RFC 822.
    static func greek(_ text: String) -> Int64? {
        let parts = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard parts.count == 6, parts[0].hasSuffix(","), let day = greekDays[String(parts[0].dropLast())],
              let month = greekMonths[parts[2]] else {
            return nil
        }
        return rfc822("\(day), \(parts[1]) \(month) \(parts[3]) \(parts[4]) \(parts[5])")
    }

    private static let hungarianMonths: [String: Int] = [
        "január": 1, "február": 2, "március": 3, "április": 4, "május": 5, "június": 6,
        "július": 7, "augusztus": 8, "szeptember": 9, "október": 10, "november": 11, "december": 12,
    ]

    /// "2004-július-13T9:15-05:00": the month by its Hungarian name, then read as W3C-DTF.
    static func hungarian(_ text: String) -> Int64? {
        let fields = text.split(separator: "-", maxSplits: 2).map(String.init)
        guard fields.count == 3, fields[0].count == 4, let month = hungarianMonths[fields[1].lowercased()] else {
            return nil
        }
        let rest = fields[2]
        let date = "\(fields[0])-\(month < 10 ? "0" : "")\(month)-"
        guard let t = rest.firstIndex(where: { $0 == "T" || $0 == "t" }) else { return w3dtf(date + rest) }
        var time = String(rest[rest.index(after: t)...])
        if time.firstIndex(of: ":").map({ time.distance(from: time.startIndex, to: $0) == 1 }) == true {
            time = "0" + time  // "9:15" → "09:15"
        }
        return w3dtf(date + rest[..<t] + "T" + time)
    }
}
