import FeedStore
import Foundation
import Synchronization

/// The rules as the store applies them (`EntryRules`), in Miniflux's order: the account's block
/// filters, the feed's blocklist, the account's keep filters, the feed's keeplist. A feed's list is
/// one regular expression over the title, URL and author; an account's filters are Miniflux's lines
/// `EntryTitle=…`, `EntryURL=…`, `EntryContent=…`, `EntryAuthor=…` (a pattern each) and
/// `EntryDate=future`, `before:YYYY-MM-DD`, `after:…`, `between:…,…`, `max-age:30d` (also `h`,
/// `m`, `s`). `EntryTag` and `EntryCommentsURL` match nothing: we keep neither. Patterns are
/// `BoundedRegex`es: one that runs out of steps, or does not compile, matches nothing.
public final class EntryRuleMatcher: EntryRules {
    private let compiled = Mutex<[String: BoundedRegex]>([:])
    /// Account filters, parsed: the same few judge every arriving entry.
    private let parsedFilters = Mutex<[String: [(field: String, value: String)]]>([:])
    /// Patterns that gave up, each logged once: a rule to rewrite, said once rather than per entry.
    private let gaveUp = Mutex<Set<String>>([])
    private let now: @Sendable () -> Date
    private let logger: Logger?

    public init(logger: Logger? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        self.logger = logger
        self.now = now
    }

    public func hides(_ entry: RuledEntry, by rules: RuleSet) -> Bool {
        // Each field made ready for matching once, whatever number of patterns ask of it; every
        // pattern of the judgment draws on one budget, so 100 rule lines cost what one may.
        let subjects = Subjects(entry)
        let fields = [subjects.title, subjects.url, subjects.author].compactMap { $0 }
        var budget = BoundedRegex.defaultBudget
        if let filters = rules.blockFilters, matchesAny(lines(filters), entry, subjects, &budget) { return true }
        if let blocklist = rules.blocklist, !blocklist.isEmpty, fields.contains(where: { matches(blocklist, $0, &budget) }) {
            return true
        }
        if let filters = rules.keepFilters, case let keep = lines(filters), !keep.isEmpty {
            return !matchesAny(keep, entry, subjects, &budget)
        }
        if let keeplist = rules.keeplist, !keeplist.isEmpty, regex(keeplist) != nil {
            return !fields.contains { matches(keeplist, $0, &budget) }
        }
        return false
    }

    /// An entry's fields, each made ready for matching when first asked.
    private final class Subjects {
        let title, url, author: BoundedRegex.Subject?
        private let contentText: String?
        lazy var content: BoundedRegex.Subject? = contentText.map(BoundedRegex.Subject.init)

        init(_ entry: RuledEntry) {
            title = entry.title.map(BoundedRegex.Subject.init)
            url = entry.url.map(BoundedRegex.Subject.init)
            author = entry.author.map(BoundedRegex.Subject.init)
            contentText = entry.content
        }
    }

    /// Whether `pattern` matches `subject` within what is left of `budget`; one that runs out of steps
    /// does not, and is logged once.
    private func matches(_ pattern: String, _ subject: BoundedRegex.Subject, _ budget: inout Int) -> Bool {
        guard let regex = regex(pattern), budget > 0 else { return false }
        switch regex.matches(subject, remaining: &budget) {
        case .match: return true
        case .noMatch: return false
        case .gaveUp:
            if gaveUp.withLock({ $0.insert(pattern).inserted }) {
                logger?.warning("a filter rule's pattern gave up (too much backtracking): it matches nothing; rewrite it",
                                ["pattern": String(pattern.prefix(200)), "steps": BoundedRegex.defaultBudget])
            }
            return false
        }
    }

    /// The account's filter lines, `Field=pattern`, parsed once.
    private func lines(_ filters: String) -> [(field: String, value: String)] {
        if let known = parsedFilters.withLock({ $0[filters] }) { return known }
        let parsed = filters.split(separator: "\n").compactMap { line -> (field: String, value: String)? in
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        parsedFilters.withLock { cache in
            if cache.count > 10_000 { cache.removeAll() }
            cache[filters] = parsed
        }
        return parsed
    }

    /// Whether any of the account's filter lines matches the entry.
    private func matchesAny(_ lines: [(field: String, value: String)], _ entry: RuledEntry, _ subjects: Subjects,
                            _ budget: inout Int) -> Bool {
        lines.contains { field, value in
            if field == "EntryDate" { return matchesDate(value, entry.date) }
            let subject: BoundedRegex.Subject? = switch field {
            case "EntryTitle": subjects.title
            case "EntryURL": subjects.url
            case "EntryContent": subjects.content
            case "EntryAuthor": subjects.author
            default: nil
            }
            guard let subject else { return false }
            return matches(value, subject, &budget)
        }
    }

    private func matchesDate(_ rule: String, _ date: Date?) -> Bool {
        guard let date else { return false }
        if rule == "future" { return date > now() }
        let parts = rule.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return false }
        func day(_ text: Substring) -> Date? {
            let numbers = text.split(separator: "-").compactMap { Int($0) }
            guard numbers.count == 3 else { return nil }
            var components = DateComponents(year: numbers[0], month: numbers[1], day: numbers[2])
            components.timeZone = TimeZone(identifier: "UTC")
            return Calendar(identifier: .gregorian).date(from: components)
        }
        switch parts[0] {
        case "before": return day(Substring(parts[1])).map { date < $0 } ?? false
        case "after": return day(Substring(parts[1])).map { date > $0 } ?? false
        case "between":
            let bounds = parts[1].split(separator: ",").compactMap(day)
            return bounds.count == 2 && date > bounds[0] && date < bounds[1]
        case "max-age":
            guard let age = Self.duration(parts[1]) else { return false }
            return date < now().addingTimeInterval(-age)
        default: return false
        }
    }

    /// `30d`, `12h`, `15m`, `90s`.
    static func duration(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let count = Double(text.dropLast()), count >= 0 else { return nil }
        switch unit {
        case "d": return count * 86_400
        case "h": return count * 3_600
        case "m": return count * 60
        case "s": return count
        default: return nil
        }
    }

    /// The compiled pattern; nil for one that does not compile (refused when set: from an older build).
    private func regex(_ pattern: String) -> BoundedRegex? {
        if let known = compiled.withLock({ $0[pattern] }) { return known }
        guard let made = try? BoundedRegex(pattern) else { return nil }
        compiled.withLock { cache in
            if cache.count > 10_000 { cache.removeAll() }
            cache[pattern] = made
        }
        return made
    }
}
