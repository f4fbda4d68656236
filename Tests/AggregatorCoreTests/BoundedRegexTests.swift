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
        ("a+?b", "aaab", true), ("[\\s]x", "a x", true),
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
}
