import FeedParser
import FoundationEssentials
import Glibc

/// The value of `--since WHEN` and `--before WHEN`: a date the daemon reads as it is (2024-06-01,
/// RFC 3339, RFC 822), or an age counted back from now (`30m`, `12h`, `7d`, `2w`; `today` and
/// `yesterday` start at local midnight), sent as the RFC 3339 instant it stands for. The protocol
/// stays dates only.
struct WhenArgument {
    /// What goes into the request's `since` or `before`.
    let value: String

    /// - Parameter option: the option's name, for the message.
    /// - Throws: `UsageError` when `text` is neither a date nor an age.
    /// - Parameter timeZone: where "today" begins (a tz database name); nil for the local time zone.
    init(_ text: String, option: String = "--since", now: Date = Date(), timeZone: String? = nil) throws(UsageError) {
        if let instant = Self.instant(ago: text.lowercased(), now: now, timeZone: timeZone) {
            value = rfc3339(secondsSinceEpoch: Int64(instant.timeIntervalSince1970.rounded(.down)))
        } else if FeedDateParser.date(from: text) != nil {
            value = text
        } else {
            throw UsageError("Invalid value '\(text)' for '\(option)': use a date (2024-06-01, "
                + "2024-06-01T12:00:00Z) or an age (30m, 12h, 7d, 2w, today, yesterday)")
        }
    }

    private static let secondsPerUnit: [Character: Int] = ["m": 60, "h": 3_600, "d": 86_400, "w": 604_800]

    private static func instant(ago text: String, now: Date, timeZone: String?) -> Date? {
        switch text {
        case "today":
            return LocalTime.startOfDay(now, daysBack: 0, timeZone: timeZone)
        case "yesterday":
            return LocalTime.startOfDay(now, daysBack: 1, timeZone: timeZone)
        default:
            // A count of days, not calendar days: `7d` is 168 hours back, whatever the clocks did.
            guard let unit = text.last, let seconds = secondsPerUnit[unit],
                  let count = Int(text.dropLast()), count >= 0, count <= 100 * 365 * 86_400 / seconds
            else { return nil }
            return now.addingTimeInterval(-Double(count * seconds))
        }
    }
}

/// Local dates by the C library's time zone database: the client's Foundation (without ICU) knows
/// no time zone but UTC.
enum LocalTime {
    /// Midnight that begins the day `daysBack` days before `now`'s, in `timeZone` (nil: the local one).
    static func startOfDay(_ now: Date, daysBack: Int, timeZone: String? = nil) -> Date {
        inZone(timeZone) {
            var seconds = time_t(now.timeIntervalSince1970.rounded(.down))
            var parts = tm()
            localtime_r(&seconds, &parts)
            (parts.tm_hour, parts.tm_min, parts.tm_sec) = (0, 0, 0)
            parts.tm_mday -= Int32(daysBack)
            parts.tm_isdst = -1  // mktime finds whether daylight saving time applies then
            return Date(timeIntervalSince1970: Double(mktime(&parts)))
        }
    }

    /// The local calendar fields of `date`: year, month, day, hour, minute.
    static func fields(of date: Date, timeZone: String? = nil) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        inZone(timeZone) {
            var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
            var parts = tm()
            localtime_r(&seconds, &parts)
            return (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min))
        }
    }

    /// Runs `body` with `TZ` set to `timeZone` (the tests' zones), then as it was.
    private static func inZone<T>(_ timeZone: String?, _ body: () -> T) -> T {
        guard let timeZone else { return body() }
        let saved = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", timeZone, 1)
        tzset()
        defer {
            if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
            tzset()
        }
        return body()
    }
}
