@testable import aggregatorctl
import Foundation
import Testing

@Suite struct WhenArgumentTests {
    /// 2026-12-01T15:30:00Z.
    let now = Date(timeIntervalSince1970: 1_796_139_000)

    func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        return calendar
    }

    @Test(arguments: [
        ("30m", "2026-12-01T15:00:00Z"), ("12h", "2026-12-01T03:30:00Z"), ("7d", "2026-11-24T15:30:00Z"),
        ("2w", "2026-11-17T15:30:00Z"), ("0d", "2026-12-01T15:30:00Z"), ("7D", "2026-11-24T15:30:00Z"),
    ])
    func agesCountBackFromNow(text: String, expected: String) throws {
        #expect(try WhenArgument(text, now: now, timeZone: "UTC").value == expected)
    }

    @Test func todayAndYesterdayStartAtLocalMidnight() throws {
        #expect(try WhenArgument("today", now: now, timeZone: "UTC").value == "2026-12-01T00:00:00Z")
        #expect(try WhenArgument("yesterday", now: now, timeZone: "UTC").value == "2026-11-30T00:00:00Z")
        // Midnight in Berlin (UTC+1 in December) is 23:00 UTC the day before.
        #expect(try WhenArgument("today", now: now, timeZone: "Europe/Berlin").value
                    == "2026-11-30T23:00:00Z")
        #expect(try WhenArgument("Yesterday", now: now, timeZone: "Europe/Berlin").value
                    == "2026-11-29T23:00:00Z")
    }

    @Test(arguments: ["2024-06-01", "2024-06-01T12:00:00Z", "Sat, 01 Jun 2024 11:53:06 +0200"])
    func datesGoToTheDaemonAsWritten(text: String) throws {
        #expect(try WhenArgument(text, now: now).value == text)
    }

    @Test func theMessageNamesTheOptionGiven() {
        #expect {
            try WhenArgument("soon", option: "--before")
        } throws: { error in
            (error as? UsageError)?.description.hasPrefix("Invalid value 'soon' for '--before'") == true
        }
    }

    @Test(arguments: ["garbage", "7x", "-7d", "d", "", "1.5h", "99999999999w"])
    func anythingElseIsAUsageErrorThatNamesBothForms(text: String) {
        #expect {
            try WhenArgument(text, now: now)
        } throws: { error in
            let message = (error as? UsageError)?.description ?? ""
            return message.contains("'\(text)'") && message.contains("2024-06-01") && message.contains("7d")
        }
    }
}
