import FeedStore
import Synchronization

/// The accounts' filter rules as the store applies them (`EntryRules`): Miniflux's `blocklist_rules`
/// and `keeplist_rules`, a regular expression each, matched against an entry's title, URL and
/// author with `BoundedRegex` (a pattern that runs out of steps matches nothing). Compiled patterns
/// are kept, as the same few rules judge every arriving entry.
public final class EntryRuleMatcher: EntryRules {
    private let compiled = Mutex<[String: BoundedRegex]>([:])

    public init() {}

    public func hides(title: String?, url: String?, author: String?, blocklist: String?, keeplist: String?) -> Bool {
        let fields = [title, url, author].compactMap { $0 }
        if let blocklist, !blocklist.isEmpty, let pattern = regex(blocklist),
           fields.contains(where: { pattern.matches($0) == .match }) {
            return true
        }
        if let keeplist, !keeplist.isEmpty, let pattern = regex(keeplist) {
            return !fields.contains { pattern.matches($0) == .match }
        }
        return false
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
