import Foundation

/// Durations and sizes as a configuration writes them: `500ms`, `10s`, `2m`, `1h`, `7d` (a bare
/// number is seconds); `512K`, `16M`, `1G` in binary units (a bare number is bytes).
enum ConfigurationValues {
    private static let millisecondsPerUnit: [String: Double] = ["ms": 1, "s": 1_000, "": 1_000, "m": 60_000,
                                                                 "h": 3_600_000, "d": 86_400_000]
    private static let bytesPerUnit: [String: Int] = ["": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
                                                      "g": 1 << 30, "gib": 1 << 30]

    /// `text` as whole milliseconds, or nil when it is not a duration.
    static func milliseconds(_ text: String) -> Int? {
        let (number, unit) = split(text)
        guard let value = Double(number), value >= 0, let scale = millisecondsPerUnit[unit] else { return nil }
        let milliseconds = (value * scale).rounded()
        return milliseconds < 1e15 ? Int(milliseconds) : nil
    }

    /// `text` as bytes, or nil when it is not a size.
    static func bytes(_ text: String) -> Int? {
        let (number, unit) = split(text)
        guard let value = Int(number), value >= 0, let scale = bytesPerUnit[unit],
              value <= Int(Int32.max) / scale else { return nil }
        return value * scale
    }

    /// The shortest exact way to write `milliseconds`: `10s`, `1500ms`, `2m`, `1d`.
    static func durationText(milliseconds: Int) -> String {
        for (unit, scale) in [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1_000)]
        where milliseconds > 0 && milliseconds % scale == 0 {
            return "\(milliseconds / scale)\(unit)"
        }
        return "\(milliseconds)ms"
    }

    /// The shortest exact way to write `bytes`: `16M`, `512K`, `1000`.
    static func sizeText(bytes: Int) -> String {
        for (unit, scale) in [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where bytes > 0 && bytes % scale == 0 {
            return "\(bytes / scale)\(unit)"
        }
        return "\(bytes)"
    }

    /// `"1.5s"` → ("1.5", "s"); units are matched case-insensitively.
    private static func split(_ text: String) -> (number: Substring, unit: String) {
        let trimmed = Substring(text.trimmingCharacters(in: .whitespaces))
        let unitStart = trimmed.firstIndex { !("0"..."9").contains($0) && $0 != "." } ?? trimmed.endIndex
        return (trimmed[..<unitStart], trimmed[unitStart...].trimmingCharacters(in: .whitespaces).lowercased())
    }
}
