import FeedStore
import Foundation
import Synchronization
@testable import AggregatorCore
import Testing

/// Users' regular expressions (filter rules) match as RE2 would, and a pattern that backtracks
/// catastrophically gives up within its budget instead of holding the daemon.
@Suite struct BoundedRegexTests {
    private func outcome(_ pattern: String, _ text: String) throws -> BoundedRegex.Outcome {
        try BoundedRegex(pattern).matches(text)
    }

    @Test(arguments: [
        ("sponsored", "A sponsored post", true), ("(?i)SPONSORED", "A Sponsored post", true),
        ("sponsored", "A Sponsored post", false), ("^Ad:", "Ad: buy", true), ("^Ad:", "Read: Ad:", false),
        ("post$", "a post", true), ("post$", "posts", false), ("\\bcat\\b", "a cat sat", true),
        ("\\bcat\\b", "concatenate", false), ("colou?r", "color", true), ("colou?r", "colour", true),
        ("a{3}", "caaat", true), ("a{3}", "caat", false), ("a{2,}b", "aaab", true), ("x{1,2}y", "xy", true),
        ("(foo|bar)baz", "a barbaz", true), ("(?:foo|bar)+!", "foobarfoo!", true), ("[0-9]+ comments", "12 comments", true),
        ("[^a-z]", "abc", false), ("[^a-z]", "abC", true), ("(?i)[a-z]+ing", "RUNNING", true), ("\\d\\d", "a1b2", false),
        ("\\w+@\\w+\\.com", "mail me@example.com", true), ("a.c", "a\nc", false), ("\\.", "no dot", false),
        ("price: \\$\\d+", "price: $30", true), (".*", "", true), ("(a|b)*c", "ababd", false), ("é", "café", true),
        ("a+?b", "aaab", true), ("[\\s]x", "a x", true), ("^a|b", "ab", true), ("^a|b", "xa", false),
        ("x|^a", "a", true), ("(?i)buy now", "Please BUY NOW!", true), ("\\bnow", "snow", false),
    ])
    func matchesAsRE2Would(pattern: String, text: String, expected: Bool) throws {
        #expect(try outcome(pattern, text) == (expected ? .match : .noMatch), "\(pattern) on \(text)")
    }

    @Test func aCatastrophicPatternGivesUpWithinItsBudget() throws {
        let text = String(repeating: "a", count: 40) + "!"
        let start = ContinuousClock.now
        #expect(try outcome("(a+)+$", text) == .gaveUp)
        #expect(try outcome("(a|aa)*b", text) == .gaveUp)
        #expect(try outcome("(x*)*y", String(repeating: "x", count: 30)) == .gaveUp)
        #expect(ContinuousClock.now - start < .seconds(2), "each gives up after its budget, not after 2^40 steps")
        #expect(try BoundedRegex("(a+)+$").matches("aaaa") == .match, "the same pattern matches where it can, quickly")
    }

    @Test(arguments: ["(a", "a)", "[abc", "*a", "a**", "\\1", "(?=a)", "(?<name>a)", "a{2000}", "[z-a]", "a\\",
                      String(repeating: "a", count: 2001)])
    func refusesWhatItDoesNotSupport(pattern: String) {
        #expect(throws: RegexSyntaxError.self, "\(pattern)") { try BoundedRegex(pattern) }
    }

    /// A pattern's run of ASCII literals is looked for in the text's bytes before the program runs:
    /// the answers are the program's (case folded as it folds, a phrase across a group, the Kelvin sign).
    @Test(arguments: [
        ("(?i)buy now", "Please BUY NOW!", true), ("(?i)buy now", "buy-now", false), ("buy now", "Buy now", false),
        ("(?:promo) code [A-Z0-9]{4,}", "your promo code AB12 here", true), ("promo code [A-Z0-9]{4,}", "promo code ab", false),
        ("(?i)limited[- ]time offer", "A LIMITED-TIME OFFER", true), ("(?i)dark", "the DARK side", true),
        ("(?i)kelvin scale", "the \u{212A}elvin scale", true), ("(?i)caf\u{E9} noir", "un CAF\u{C9} NOIR", true),
        ("(foo|bar)baz", "barbaz", true), ("abc", "ab", false), ("x+yz", "xxxyz", true),
    ])
    func theByteSearchFirstChangesNoAnswer(pattern: String, text: String, expected: Bool) throws {
        #expect(try outcome(pattern, text) == (expected ? .match : .noMatch), "\(pattern) on \(text)")
    }

    @Test func aPatternsLiteralRunIsFound() throws {
        #expect(try BoundedRegex("(?i)subscribe to our premium").requiredBytes == Array("subscribe to our premium".utf8))
        #expect(try BoundedRegex("(?i)limited[- ]time offer").requiredBytes == Array("time offer".utf8), "the longest run")
        #expect(try BoundedRegex("(?i)kelvin").requiredBytes == Array("elvin".utf8), "a k ends a run under (?i)")
        #expect(try BoundedRegex("a|bcd").requiredBytes == nil, "alternatives: none required")
        #expect(try BoundedRegex("ab").requiredBytes == nil, "too short to be worth it")
    }
}

/// The rules in Miniflux's order and syntax: the account's block filters, the feed's blocklist, the
/// account's keep filters, the feed's keeplist.
@Suite struct EntryRuleMatcherTests {
    let matcher = EntryRuleMatcher(now: { Date(timeIntervalSince1970: 1_750_000_000) })
    let now = Date(timeIntervalSince1970: 1_750_000_000)

    private func entry(_ title: String, content: String = "", author: String? = nil, daysOld: Double = 1) -> RuledEntry {
        RuledEntry(title: title, url: "https://example.org/\(title.count)", author: author, content: content,
                   date: now.addingTimeInterval(-daysOld * 86_400))
    }

    @Test func accountFiltersAndFeedListsInMinifluxOrder() {
        let sponsored = entry("Sponsored: soap"), news = entry("World news", content: "Elections today")
        #expect(matcher.hides(sponsored, by: RuleSet(blockFilters: "EntryTitle=(?i)sponsored")))
        #expect(!matcher.hides(news, by: RuleSet(blockFilters: "EntryTitle=(?i)sponsored")))
        #expect(matcher.hides(news, by: RuleSet(blockFilters: "EntryTitle=nothing\nEntryContent=Election")), "any line")
        #expect(matcher.hides(entry("Old", daysOld: 40), by: RuleSet(blockFilters: "EntryDate=max-age:30d")))
        #expect(!matcher.hides(entry("New", daysOld: 2), by: RuleSet(blockFilters: "EntryDate=max-age:30d")))
        #expect(matcher.hides(entry("Soon", daysOld: -1), by: RuleSet(blockFilters: "EntryDate=future")))
        #expect(matcher.hides(entry("Old", daysOld: 400), by: RuleSet(blockFilters: "EntryDate=before:2025-01-01")))
        #expect(matcher.hides(entry("By Bob", author: "Bob"), by: RuleSet(blocklist: "^Bob$")))
        // Keep filters win over the feed's keeplist; a block filter wins over both.
        #expect(!matcher.hides(news, by: RuleSet(keeplist: "nothing", keepFilters: "EntryContent=Election")))
        #expect(matcher.hides(sponsored, by: RuleSet(keepFilters: "EntryContent=Election")))
        #expect(matcher.hides(news, by: RuleSet(blockFilters: "EntryTitle=World", keepFilters: "EntryTitle=World")))
        #expect(matcher.hides(news, by: RuleSet(keeplist: "(?i)sport")))
        #expect(!matcher.hides(news, by: RuleSet(blockFilters: "EntryTag=news\nEntryCommentsURL=.")), "we keep neither")
        #expect(!matcher.hides(news, by: RuleSet(blocklist: "(a+)+$")), "a pattern that gives up matches nothing")
    }
}

extension EntryRuleMatcherTests {
    /// Catastrophic rules against a 100 KB title: bounded (well under a second), hide nothing, logged once.
    @Test func aCatastrophicRuleOnAHugeTitleIsBoundedAndLoggedOnce() {
        let lines = Mutex<[String]>([])
        let logger = Logger(minimumLevel: .info, component: "rules", journald: false) { line in lines.withLock { $0.append(line) } }
        let matcher = EntryRuleMatcher(logger: logger)
        let huge = RuledEntry(title: String(repeating: "a", count: 100_000) + "!", url: nil, author: nil, content: nil, date: nil)
        let start = ContinuousClock.now
        for _ in 0..<3 { #expect(!matcher.hides(huge, by: RuleSet(blocklist: "(a+)+$", blockFilters: "EntryTitle=(a|aa)*b"))) }
        #expect(ContinuousClock.now - start < .seconds(3))
        let logged = lines.withLock { $0 }
        // The block filter spends the judgment's whole budget (docs/SECURITY.md): the blocklist is not tried.
        #expect(logged.count == 1 && logged.allSatisfy { $0.contains("gave up") && $0.contains("(a|aa)*b") },
                "the pattern that gave up, once: \(logged)")
    }

}

@Suite struct RegexBudgetTests {
    /// A class test costs its size (docs/SECURITY.md): 600 ranges tried at every position of a long text
    /// are 600 steps each, not one, so the budget runs out.
    @Test func aLargeClassCountsByItsSize() throws {
        // The class [一-丁…]: 600 ranges of two CJK scalars each.
        let scalars = (0..<600).map { i -> String in
            let low = Unicode.Scalar(UInt32(0x4E00 + i * 2))!, high = Unicode.Scalar(UInt32(0x4E00 + i * 2 + 1))!
            return "\(Character(low))-\(Character(high))"
        }
        let regex = try BoundedRegex("x[" + scalars.joined() + "]z")
        let text = String(repeating: "x", count: 1_000)
        #expect(regex.matches(text) == .gaveUp)
        #expect(regex.matches(String(repeating: "x", count: 10)) == .noMatch, "a short text is within the budget")
    }

    /// Patterns judging one entry share one budget: the second gets what the first left.
    @Test func patternsShareABudget() throws {
        let slow = try BoundedRegex("(a+)+$")
        let subject = BoundedRegex.Subject(String(repeating: "a", count: 40) + "b")
        var remaining = BoundedRegex.defaultBudget
        #expect(slow.matches(subject, remaining: &remaining) == .gaveUp)
        #expect(remaining == 0)
        #expect(try BoundedRegex("a").matches(subject, remaining: &remaining) == .gaveUp, "nothing left")
    }
}
