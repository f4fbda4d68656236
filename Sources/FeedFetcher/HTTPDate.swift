import Foundation

/// The date and caching headers the scheduler honours (RFC 9110 §5.6.7, RFC 9111 §5.2–5.3).
enum HTTPDate {
    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) as a moment.
    static func date(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }

    /// Retry-After as seconds from now: delay-seconds or an HTTP-date.
    static func delay(_ value: String, now: Date = Date()) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return TimeInterval(seconds) }
        return date(trimmed).map { max(0, $0.timeIntervalSince(now)) }
    }

    /// How long the answer may be reused: Cache-Control max-age wins over Expires.
    static func freshness(_ headers: [String: String], now: Date = Date()) -> TimeInterval? {
        if let cacheControl = headers["cache-control"] {
            for directive in cacheControl.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int(parts[1]), seconds >= 0 {
                    return TimeInterval(seconds)
                }
            }
        }
        guard let expires = headers["expires"].flatMap(date) else { return nil }
        return max(0, expires.timeIntervalSince(now))
    }
}
