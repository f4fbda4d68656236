/// Calendar arithmetic on the proleptic Gregorian calendar in UTC, without Foundation's calendars:
/// fast, and free of the host's time zone.
struct CivilTime: Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour = 0
    var minute = 0
    var second = 0

    /// Seconds since 1970-01-01T00:00:00Z. Out-of-range fields carry over (hour 25 is the next day),
    /// the way C's `mktime` normalises them.
    var secondsSinceEpoch: Int64 {
        // Fields clamped to ten million first: a feed's "year 19201262499026240" overflowed the
        // arithmetic below and stopped the process (found by fuzzing). Such a date is nonsense
        // either way; within these bounds nothing overflows.
        let (year, month, day) = (Self.clamped(year), Self.clamped(month), Self.clamped(day))
        let (hour, minute, second) = (Self.clamped(hour), Self.clamped(minute), Self.clamped(second))
        // Normalise the month first so the day count below sees 1...12.
        let monthIndex = month - 1
        let yearCarry = monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12
        let normalizedYear = year + yearCarry
        let normalizedMonth = monthIndex - yearCarry * 12 + 1
        let days = Self.daysFromCivil(year: normalizedYear, month: normalizedMonth, day: 1) + Int64(day - 1)
        return days * 86_400 + Int64(hour) * 3_600 + Int64(minute) * 60 + Int64(second)
    }

    private static func clamped(_ field: Int) -> Int {
        min(max(field, -10_000_000), 10_000_000)
    }

    /// Whether the fields name a real calendar moment (no carrying needed).
    var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= Self.daysIn(month: month, year: year)
            && (0...23).contains(hour) && (0...59).contains(minute) && (0...59).contains(second)
    }

    /// The fields of the UTC moment `seconds` after the epoch.
    init(secondsSinceEpoch seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let remainder = Int(seconds - days * 86_400)
        (year, month, day) = Self.civilFromDays(days)
        hour = remainder / 3_600
        minute = remainder % 3_600 / 60
        second = remainder % 60
    }

    init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days algorithms.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}

/// A moment as RFC 3339 UTC text, `YYYY-MM-DDTHH:MM:SSZ`, the form every output uses.
public func rfc3339(secondsSinceEpoch seconds: Int64) -> String {
    var bytes: [UInt8] = []
    appendRFC3339(secondsSinceEpoch: seconds, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

/// The same text, appended to `bytes` (JSON output writes it without making a string first).
public func appendRFC3339(secondsSinceEpoch seconds: Int64, to bytes: inout [UInt8]) {
    let time = CivilTime(secondsSinceEpoch: seconds)
    // Filled in place: one append of a template, then digits written through one buffer pointer.
    let start = bytes.count
    let template: StaticString = "0000-00-00T00:00:00Z"
    template.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.withUnsafeMutableBufferPointer { buffer in
        func put(_ value: Int, at offset: Int, digits: Int) {
            var remaining = value
            for position in stride(from: start + offset + digits - 1, through: start + offset, by: -1) {
                buffer[position] = UInt8(48 + remaining % 10)
                remaining /= 10
            }
        }
        put(time.year, at: 0, digits: 4)
        put(time.month, at: 5, digits: 2)
        put(time.day, at: 8, digits: 2)
        put(time.hour, at: 11, digits: 2)
        put(time.minute, at: 14, digits: 2)
        put(time.second, at: 17, digits: 2)
    }
}
