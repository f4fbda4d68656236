import FeedStore
import Foundation
import Synchronization

/// Judging stored entries again after an account's rules change (docs/SECURITY.md, "Filter rules"): in the
/// background, off Swift's cooperative pool, a chunk of entries at a time, each chunk's verdicts
/// applied in a short transaction of its own, so that no regex runs while the writer is held and
/// nobody waits behind one account's rules.
extension AggregatorService {
    /// Entries judged per chunk, and so at most the entries one short transaction marks.
    static let judgingChunk = 500
    /// How long a caller waits for the judging before answering: a small account's result is seen at
    /// once; a large one's arrives when done.
    static let judgingWait: Duration = .milliseconds(300)

    /// Judges again the entries of `account`'s subscriptions (all, or those of `subscriptions`) by its
    /// rules as they are now. A judging already running for the account is replaced by one that
    /// covers what both asked for. Returns after the judging or `judgingWait`, whichever comes first.
    func judgeAgain(account: AccountIdentity, subscriptions: [SubscriptionID]? = nil) async {
        let task = ruleJudging.start(account: account.id, subscriptions: subscriptions) { [self] wanted in
            await judgeEverything(account: account.id, subscriptions: wanted)
        }
        // Whichever comes first; a task group would wait for the judging (awaiting a task's value
        // does not end when the waiter is cancelled).
        let first = FirstOf()
        await withCheckedContinuation { continuation in
            first.set(continuation)
            Task { await task.value; first.resume() }
            Task { try? await Task.sleep(for: Self.judgingWait); first.resume() }
        }
    }

    /// Waits for every judging started so far (tests, and a daemon that stops).
    public func judgingFinished() async {
        for task in ruleJudging.running() { await task.value }
    }

    private func judgeEverything(account: AccountID, subscriptions: [SubscriptionID]?) async {
        guard let matcher = store.entryRules else { return }
        let started = ContinuousClock.now
        var judged = 0
        do {
            for (feed, rules) in try await read({ try $0.ruleSets(account: account, subscriptions: subscriptions) }) {
                try Task.checkCancellation()
                if rules.isEmpty {
                    try await write(for: account) { try await $0.forgetRuleHides(feed: feed, account: account) }
                    continue
                }
                var after: Int64 = 0
                while true {
                    try Task.checkCancellation()
                    let start = after
                    let chunk = try await read { try $0.ruledEntries(feed: feed, after: start, limit: Self.judgingChunk) }
                    guard let last = chunk.last else { break }
                    let verdicts = await Self.judge(chunk, feed: feed, by: rules, with: matcher)
                    try await write(for: account) { try await $0.apply(verdicts, account: account) }
                    after = last.id
                    judged += chunk.count
                }
            }
            let (seconds, attoseconds) = (ContinuousClock.now - started).components
            pipeline.logger.info("Rules judged again", ["account_id": account, "entries": judged,
                                                        "ms": Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)])
        } catch {
            // Cancelled by a newer judging, or the store failed: the rules are saved, and entries
            // arriving are judged by them; a later change judges again.
        }
    }

    /// The verdicts on one chunk, computed on a queue of their own (regular expressions take CPU).
    private static func judge(_ chunk: [(id: Int64, entry: RuledEntry)], feed: FeedID, by rules: RuleSet,
                              with matcher: any EntryRules) async -> RuleVerdicts {
        await withCheckedContinuation { continuation in
            judgingQueue.async {
                var verdicts = RuleVerdicts(feed: feed)
                for (id, entry) in chunk {
                    verdicts.judged.append(id)
                    if matcher.hides(entry, by: rules) { verdicts.hidden.append(id) }
                }
                continuation.resume(returning: verdicts)
            }
        }
    }

    private static let judgingQueue = DispatchQueue(label: "rule-judging", qos: .utility)
}

/// A continuation resumed once, by the first of several to call `resume`.
private final class FirstOf: Sendable {
    private let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)

    func set(_ continuation: CheckedContinuation<Void, Never>) {
        waiting.withLock { $0 = continuation }
    }

    func resume() {
        waiting.withLock { continuation in
            continuation?.resume()
            continuation = nil
        }
    }
}

/// The judgings running, one per account at most.
final class RuleJudging: Sendable {
    private struct Running {
        var task: Task<Void, Never>
        var number: Int
        /// The subscriptions it judges; nil: all.
        var subscriptions: Set<SubscriptionID>?
    }

    private let state = Mutex<(running: [AccountID: Running], next: Int)>(([:], 0))

    /// Starts judging `subscriptions` (nil: all) of `account`, replacing (and covering) a judging of
    /// the account that runs already.
    func start(account: AccountID, subscriptions: [SubscriptionID]?,
               _ body: @escaping @Sendable ([SubscriptionID]?) async -> Void) -> Task<Void, Never> {
        state.withLock { state in
            let earlier = state.running[account]?.task
            earlier?.cancel()
            var wanted = subscriptions.map(Set.init)
            if let covered = state.running[account] {
                wanted = covered.subscriptions.flatMap { old in wanted.map { old.union($0) } }
            }
            state.next += 1
            let (number, judged) = (state.next, wanted.map { Array($0) })
            let task = Task { [self] in
                await earlier?.value  // its transactions end before ours begin
                await body(judged)
                finished(account: account, number: number)
            }
            state.running[account] = Running(task: task, number: number, subscriptions: wanted)
            return task
        }
    }

    func running() -> [Task<Void, Never>] {
        state.withLock { $0.running.values.map(\.task) }
    }

    private func finished(account: AccountID, number: Int) {
        state.withLock { state in
            if state.running[account]?.number == number { state.running[account] = nil }
        }
    }
}
