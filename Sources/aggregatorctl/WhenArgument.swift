import FeedParser
import Foundation

/// The value of `--since WHEN` and `--before WHEN`: a date the daemon reads as it is (2024-06-01,
/// RFC 3339, RFC 822), or an age counted back from now (`30m`, `12h`, `7d`, `2w`; `today` and
/// `yesterday` start at local midnight), sent as the RFC 3339 instant it stands for. The protocol
/// stays dates only.
struct WhenArgument {
    /// What goes into the request's `since` or `before`.
    let value: String

    /// - Parameter option: the option's name, for the message.
    /// - Throws: `UsageError` when `text` is neither a date nor an age.
    init(_ text: String, option: String = "--since", now: Date = Date(), calendar: Calendar = .current) throws(UsageError) {
        if let instant = Self.instant(ago: text.lowercased(), now: now, calendar: calendar) {
            value = rfc3339(secondsSinceEpoch: Int64(instant.timeIntervalSince1970.rounded(.down)))
        } else if FeedDateParser.date(from: text) != nil {
            value = text
        } else {
            throw UsageError("Invalid value '\(text)' for '\(option)': use a date (2024-06-01, "
                + "2024-06-01T12:00:00Z) or an age (30m, 12h, 7d, 2w, today, yesterday)")
        }
    }

    private static let secondsPerUnit: [Character: Int] = ["m": 60, "h": 3_600, "d": 86_400, "w": 604_800]

    private static func instant(ago text: String, now: Date, calendar: Calendar) -> Date? {
        switch text {
        case "today":
            return calendar.startOfDay(for: now)
        case "yesterday":
            return calendar.date(byAdding: .day, value: -1, to: calendar.startOfDay(for: now))
        default:
            // A count of days, not calendar days: `7d` is 168 hours back, whatever the clocks did.
            guard let unit = text.last, let seconds = secondsPerUnit[unit],
                  let count = Int(text.dropLast()), count >= 0, count <= 100 * 365 * 86_400 / seconds
            else { return nil }
            return now.addingTimeInterval(-Double(count * seconds))
        }
    }
}
