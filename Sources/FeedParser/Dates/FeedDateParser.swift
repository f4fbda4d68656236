import FoundationEssentials

/// Parses the date syntaxes found in real feeds: W3C-DTF, RFC 822 and its
/// corruptions, partial ISO 8601, asctime, Perforce, Greek and Hungarian forms, and the numeric
/// forms of Chinese, Japanese and Korean sites (`2020/1/10 14:33`, `2020年1月10日`), zone-less ones as UTC.
///
/// The forms are tried in a fixed order and the first that reads the whole value wins. A value
/// no form reads, or one outside years 1–9999, gives nil, never "now": fields a partial form
/// leaves out are never filled from the clock.
public enum FeedDateParser {
    /// The moment `text` names, or nil.
    public static func date(from text: String) -> Date? {
        secondsSinceEpoch(from: text).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// Seconds since 1970 of the moment `text` names, or nil.
    public static func secondsSinceEpoch(from text: String) -> Int64? {
        let trimmed = FastText.trimmed(text)
        guard !trimmed.isEmpty, trimmed.utf8.count < 200 else { return nil }
        if let seconds = fastPath(trimmed) { return inRange(seconds) ? seconds : nil }
        let parsers: [(String) -> Int64?] = [w3dtf, rfc822, iso8601, asctime, perforce, hungarian, greek, numeric]
        for parser in parsers {
            if let seconds = parser(trimmed) {
                return inRange(seconds) ? seconds : nil
            }
        }
        return nil
    }

    /// 0001-01-01T00:00:00Z ... 9999-12-31T23:59:59Z.
    private static func inRange(_ seconds: Int64) -> Bool {
        (-62_135_596_800 ... 253_402_300_799).contains(seconds)
    }

    // MARK: - Time zones

    /// Zone names of RFC 822 plus the US and military letters feeds use; unknown names mean UTC.
    static let zoneHours: [String: Int] = [
        "ut": 0, "gmt": 0, "z": 0, "utc": 0,
        "adt": -3, "ast": -4, "at": -4, "edt": -4, "est": -5, "et": -5, "cdt": -5, "cst": -6, "ct": -6,
        "mdt": -6, "mst": -7, "mt": -7, "pdt": -7, "pst": -8, "pt": -8,
        "a": -1, "n": 1, "m": -12, "y": 12, "met": 1, "mest": 2,
    ]

    static let months: [String: Int] = [
        "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
        "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
    ]

    static let dayNames: Set<String> = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    // MARK: - W3C-DTF (and MSSQL's space-separated form)

    static func w3dtf(_ text: String) -> Int64? {
        let lower = text.lowercased()
        var parts = lower.split(separator: "t", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 1 {
            parts = parts[0].split(whereSeparator: \.isWhitespace).map(String.init)
            if parts.count == 1 { parts.append("00:00:00z") }
        } else if parts.count > 2 {
            return nil
        }
        guard parts.count >= 2 else { return nil }
        let dateFields = parts[0].split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        guard let first = dateFields.first, first.count == 4 else { return nil }
        var numbers: [Int] = []
        for field in dateFields {
            guard let number = Int(field) else { return nil }
            numbers.append(number)
        }
        while numbers.count < 3 { numbers.append(1) }
        var timeText = parts[1]
        var zone = parts.count > 2 ? parts[2] : ""
        if timeText.hasSuffix("z") {
            timeText.removeLast()
            zone = "z"
        }
        if let sign = timeText.firstIndex(where: { $0 == "-" || $0 == "+" }) {
            zone = String(timeText[sign...])
            timeText = String(timeText[..<sign])
        }
        let timeFields = timeText.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        var clock: [Int] = []
        for field in timeFields {
            guard let value = Double(field), value.isFinite, abs(value) < 1e9 else { return nil }
            clock.append(Int(value))
        }
        while clock.count < 3 { clock.append(0) }
        var offsetMinutes = 0
        if let sign = zone.first, sign == "-" || sign == "+" {
            let characters = Array(zone)
            guard characters.count >= 3, let hours = Int(String(characters[1..<3])) else { return nil }
            let minutes = characters.count > 4 ? Int(String(characters[4...])) : 0
            guard let minutes, (0..<100).contains(minutes) else { return nil }  // two digits: no overflow (fuzzing)
            offsetMinutes = (hours * 60 + minutes) * (sign == "-" ? -1 : 1)
        } else {
            offsetMinutes = (zoneHours[zone] ?? 0) * 60
        }
        let time = CivilTime(year: numbers[0], month: numbers[1], day: numbers[2],
                             hour: clock[0], minute: clock[1], second: clock[2])
        guard time.isValid else { return nil }
        return time.secondsSinceEpoch - Int64(offsetMinutes) * 60
    }

    // MARK: - RFC 822 / 1123 and their corruptions

    static func rfc822(_ text: String) -> Int64? {
        var parts = text.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        guard !parts.isEmpty else { return nil }
        if parts.count < 5 { parts += ["00:00:00", "0000"] }
        if dayNames.contains(String(parts[0].prefix(3))) {
            // "Fri,24 Nov 2023 …": the day number hides behind the comma.
            if let comma = parts[0].lastIndex(of: ","), parts[0].last != "," {
                parts.insert(String(parts[0][parts[0].index(after: comma)...]), at: 1)
            }
            parts.removeFirst()
        }
        guard parts.count >= 5 else { return nil }
        var month = months[String(parts[1].prefix(3))]
        let day: Int
        if let number = Int(parts[0].trimming { $0 == "," }) {
            day = number
        } else if let swapped = months[String(parts[0].prefix(3))] {
            guard let number = Int(parts[1].trimming { $0 == "," }) else { return nil }
            day = number
            month = swapped
        } else {
            return nil
        }
        guard let month else { return nil }
        let yearText = parts[2].trimming { $0 == "," }
        guard var year = Int(yearText) else { return nil }
        if yearText.count <= 2 { year += year < 90 ? 2000 : 1900 }
        var clock = parts[3].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        while clock.count < 3 { clock.append(0) }
        guard clock.count == 3, let hour = clock[0], let minute = clock[1], let second = clock[2] else { return nil }
        var zone = parts[4]
        if zone.hasPrefix("etc/") { zone.removeFirst(4) }
        if zone.hasPrefix("gmt") {
            let rest = String(zone.dropFirst(3).replacing(":", with: ""))
            zone = rest.isEmpty ? "gmt" : rest
        }
        var offsetMinutes: Int
        if let sign = zone.first, sign == "-" || sign == "+" {
            let characters = Array(zone)
            guard characters.count >= 3, let hours = Int(String(characters[1..<3])) else { return nil }
            let minuteStart = zone.contains(":") ? 4 : 3
            let minutes = characters.count > minuteStart ? Int(String(characters[minuteStart...])) : 0
            guard let minutes, (0..<100).contains(minutes) else { return nil }  // two digits: no overflow (fuzzing)
            offsetMinutes = hours * 60 + minutes
            if sign == "-" { offsetMinutes = -offsetMinutes }
        } else {
            offsetMinutes = (zoneHours[zone] ?? 0) * 60
        }
        let time = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard time.isValid else { return nil }
        return time.secondsSinceEpoch - Int64(offsetMinutes) * 60
    }

    // MARK: - asctime: "Sun Jan  4 16:29:06 2004", "Sun Jul 15 01:16:00 +0000 2012"

    static func asctime(_ text: String) -> Int64? {
        let parts = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard dayNames.contains(String(parts.first?.lowercased().prefix(3) ?? "")) else { return nil }
        switch parts.count {
        case 5: return rfc822("\(parts[0]), \(parts[2]) \(parts[1]) \(parts[4]) \(parts[3]) GMT")
        case 6: return rfc822("\(parts[0]), \(parts[2]) \(parts[1]) \(parts[5]) \(parts[3]) \(parts[4])")
        default: return nil
        }
    }

    // MARK: - Perforce: "Fri, 2006/09/15 08:19:53 EDT"

    static func perforce(_ text: String) -> Int64? {
        let parts = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard parts.count == 4, parts[0].hasSuffix(","), dayNames.contains(String(parts[0].prefix(3)).lowercased()) else {
            return nil
        }
        let date = parts[1].split(separator: "/")
        guard date.count == 3, let year = Int(date[0]), let month = Int(date[1]), let day = Int(date[2]),
              (1...12).contains(month) else {
            return nil
        }
        let monthName = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"][month - 1]
        return rfc822("\(parts[0]) \(day) \(monthName) \(year) \(parts[2]) \(parts[3])")
    }
}
