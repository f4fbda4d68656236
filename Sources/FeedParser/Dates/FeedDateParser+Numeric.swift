extension FeedDateParser {
    // MARK: - Numeric dates of Chinese, Japanese and Korean sites

    /// "2020/1/10 14:33:00", "2020.01.10", "2020-1-10 14:33", "2020年1月10日 14:33": year, month and day
    /// in digits (one or two for month and day), an optional time, and an optional zone. Without a
    /// zone the time is taken as UTC: the value alone cannot say more, and a date a few hours off sorts
    /// far better than no date at all (the entry would sort as published when first seen).
    static func numeric(_ text: String) -> Int64? {
        var reader = NumericDateReader(text)
        guard let year = reader.number(digits: 4...4) else { return nil }
        let separator = reader.next()
        guard separator == "/" || separator == "." || separator == "-" || separator == "年" else { return nil }
        guard let month = reader.number(digits: 1...2) else { return nil }
        // The same separator again, or 年's partner 月.
        guard reader.next() == (separator == "年" ? "月" : separator), let day = reader.number(digits: 1...2) else {
            return nil
        }
        if separator == "年" { guard reader.next() == "日" else { return nil } }
        var time = CivilTime(year: year, month: month, day: day)
        var offsetMinutes = 0
        if !reader.isAtEnd {
            guard reader.skipTimeSeparator(), let hour = reader.number(digits: 1...2), reader.next() == ":",
                  let minute = reader.number(digits: 2...2) else { return nil }
            (time.hour, time.minute) = (hour, minute)
            if reader.peek == ":" {
                reader.advance()
                guard let second = reader.number(digits: 2...2) else { return nil }
                time.second = second
                reader.skipFraction()
            }
            guard let offset = reader.zoneOffsetMinutes() else { return nil }
            offsetMinutes = offset
        }
        guard time.isValid else { return nil }
        return time.secondsSinceEpoch - Int64(offsetMinutes) * 60
    }
}

/// Reads a numeric date one Unicode scalar at a time (年, 月 and 日 are single scalars).
private struct NumericDateReader {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    var isAtEnd: Bool { index == scalars.count }
    var peek: Unicode.Scalar? { isAtEnd ? nil : scalars[index] }

    mutating func advance() { index += 1 }

    mutating func next() -> Unicode.Scalar? {
        defer { if !isAtEnd { index += 1 } }
        return peek
    }

    /// A run of ASCII digits whose length is in `digits`.
    mutating func number(digits: ClosedRange<Int>) -> Int? {
        var value = 0
        var count = 0
        while let scalar = peek, ("0"..."9").contains(scalar), count < digits.upperBound {
            value = value * 10 + Int(scalar.value - 48)
            count += 1
            index += 1
        }
        if let scalar = peek, ("0"..."9").contains(scalar) { return nil }  // too many digits
        return digits.contains(count) ? value : nil
    }

    /// Spaces or one `T` between the date and the time.
    mutating func skipTimeSeparator() -> Bool {
        if peek == "T" {
            index += 1
            return true
        }
        let start = index
        while let scalar = peek, scalar.properties.isWhitespace { index += 1 }
        return index > start
    }

    mutating func skipFraction() {
        guard peek == "." else { return }
        index += 1
        while let scalar = peek, ("0"..."9").contains(scalar) { index += 1 }
    }

    /// What is left as a zone: nothing (UTC), `Z`, `+08:00`, `+0800`, `+08`, or a zone name RFC 822
    /// knows; nil for anything else (words after a date are no zone to guess from).
    mutating func zoneOffsetMinutes() -> Int? {
        while let scalar = peek, scalar.properties.isWhitespace { index += 1 }
        let rest = String(String.UnicodeScalarView(scalars[index...]))
        guard !rest.isEmpty else { return 0 }
        guard let sign = rest.first, sign == "+" || sign == "-" else {
            guard let hours = FeedDateParser.zoneHours[rest.lowercased()] else { return nil }
            return hours * 60
        }
        let digits = rest.dropFirst().filter { $0 != ":" }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = Int(digits) else { return nil }
        let minutes = digits.count == 2 ? value * 60 : value / 100 * 60 + value % 100
        return sign == "-" ? -minutes : minutes
    }
}
