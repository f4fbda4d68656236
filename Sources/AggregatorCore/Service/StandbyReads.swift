import FeedStore
import Synchronization

/// Lists and searches answered by PostgreSQL standbys (`database-read`), with read-your-writes for
/// the account that wrote (docs/RELIABILITY.md, "Reading from standbys"): after an account's write,
/// the primary's log position is kept for the account (and announced to the other daemons), and a
/// standby answers the account only once it has replayed that far; otherwise, or when the standby
/// is away, the primary answers. A position learnt from no one (at start, or after the daemons'
/// channel was lost) holds for every account.
final class StandbyReads: Sendable {
    private struct State {
        /// Each account's last write not yet known to be replayed.
        var written: [AccountID: Int64] = [:]
        /// What every read needs replayed (writes this daemon may not have heard of); nil: not known
        /// yet (at start, every write before it), asked of the primary by the next read.
        var floor: Int64?
        /// How far the standby had replayed when last asked.
        var replayed: Int64 = 0
        /// Until when the standby is not asked, after it failed to answer.
        var awayUntil: ContinuousClock.Instant?
    }

    let standbys: StoreReaderPool
    private let primary: StoreReaderPool
    private let state = Mutex(State())
    private let logger: Logger
    /// How long a standby that failed is left alone before it is asked again.
    static let pause = Duration.seconds(5)

    init(uri: String, primary: StoreReaderPool, logger: Logger) {
        standbys = StoreReaderPool(path: uri, standby: true)
        self.primary = primary
        self.logger = logger
    }

    /// The account wrote: reads for it wait for the primary's position now, and the other daemons
    /// are told before the write is answered. Blocks (a primary round trip).
    func wrote(account: AccountID) {
        do {
            let position = try primary.withReader { try $0.primaryPosition(announcingWriteOf: account) }
            heard(account: account, wroteUpTo: position)
        } catch {
            // Not known: every read waits for everything written until now (or the primary answers).
            lostTrack()
            logger.warning("Cannot learn the primary's position after a write; reads go to the primary until it answers",
                           ["error": "\(error)"])
        }
    }

    /// Another daemon (or this one) said that `account` wrote up to `position`.
    func heard(account: AccountID, wroteUpTo position: Int64) {
        state.withLock { state in
            if position > state.replayed { state.written[account] = max(state.written[account] ?? 0, position) }
        }
    }

    /// Writes may have been made that this daemon did not hear of (its channel came back): the next
    /// read learns the primary's position, which every read then needs.
    func lostTrack() {
        state.withLock { $0.floor = nil }
    }

    /// Every read needs the primary's position now (unknown: the primary answers every read).
    private func forgetWhatWasHeard() {
        let position = try? primary.withReader { try $0.primaryPosition() }
        state.withLock { $0.floor = position }
    }

    /// `body`'s result from a standby that has replayed what `account` wrote; nil when the primary
    /// must answer (the standby is behind, away, or failed for a reason the primary may not have).
    /// Blocks.
    func read<T>(for account: AccountID, _ body: (StoreReader) throws -> T) -> Result<T, any Error>? {
        if state.withLock({ $0.floor == nil }) { forgetWhatWasHeard() }
        let asked: (needed: Int64, replayed: Int64)? = state.withLock { state in
            guard let floor = state.floor else { return nil }  // the primary did not answer either
            if let away = state.awayUntil, away > .now { return nil }
            return (max(floor, state.written[account] ?? 0), state.replayed)
        }
        guard let asked else { return nil }
        do {
            let answer = try standbys.withReader { reader throws -> Result<T, any Error>? in
                if asked.needed > asked.replayed, !caughtUp(to: asked.needed, replayed: try reader.replayPosition()) {
                    return nil
                }
                do {
                    return .success(try body(reader))
                } catch let error as StoreError where [.invalidQuery, .notFound].contains(error.kind) {
                    return .failure(error)  // the primary would say the same
                }
            }
            answers()
            return answer
        } catch let error as StoreError where error.kind == .cannotOpen {
            let first = state.withLock { state in
                defer { state.awayUntil = .now + Self.pause }
                return state.awayUntil == nil
            }
            if first { logger.warning("The standby does not answer; the primary answers for now", ["error": "\(error)"]) }
            return nil
        } catch {
            return nil  // busy, a conflict with its replay: the primary answers this one
        }
    }

    /// The standby answered: said once after it was away.
    private func answers() {
        let wasAway = state.withLock { state in
            defer { state.awayUntil = nil }
            return state.awayUntil != nil
        }
        if wasAway { logger.info("The standby answers again") }
    }

    /// Records how far the standby replayed and whether that covers `needed`; nil: it replays
    /// nothing, having been promoted (not recorded: the URI may lead to a standby again).
    private func caughtUp(to needed: Int64, replayed: Int64?) -> Bool {
        guard let position = replayed else { return true }
        state.withLock { state in
            guard position > state.replayed else { return }
            state.replayed = position
            state.written = state.written.filter { $0.value > position }
            if let floor = state.floor, floor <= position { state.floor = 0 }
        }
        return position >= needed
    }
}
