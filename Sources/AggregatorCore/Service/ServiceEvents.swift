import FeedStore
import Foundation
import Synchronization

/// Something that happened in the daemon that front ends may want to show as it happens.
public enum ServiceEvent: Sendable, Equatable {
    /// New entries were stored and committed (readers see them now).
    case entriesStored(count: Int)
    /// A refresh round (the scheduler's or one asked for) finished.
    case roundFinished(RefreshSummary)
    /// A feed's fetch failed, with the reason recorded on it.
    case feedFailed(feedID: FeedID, url: String, reason: String)
}

/// Broadcasts events to every subscriber at once: each `subscribe()` is an `AsyncStream` of its
/// own, fed as events are published. Nobody polls for them. A subscriber that falls behind keeps
/// the newest `bufferSize` events (watchers re-read the store from where they were, so a dropped
/// `entriesStored` loses nothing).
public final class EventHub: Sendable {
    private let subscribers = Mutex<(nextID: Int, continuations: [Int: AsyncStream<ServiceEvent>.Continuation])>((0, [:]))
    private let bufferSize: Int
    /// Where events published here are also sent: the other daemons sharing the database (`ClusterNode`).
    private let relay = Mutex<(@Sendable (ServiceEvent) -> Void)?>(nil)

    public init(bufferSize: Int = 64) {
        self.bufferSize = bufferSize
    }

    /// Events published from now on, until the subscriber stops iterating (or is cancelled).
    public func subscribe() -> AsyncStream<ServiceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ServiceEvent.self,
                                                            bufferingPolicy: .bufferingNewest(bufferSize))
        let id = subscribers.withLock { state -> Int in
            state.nextID += 1
            state.continuations[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// How many subscribers listen now.
    public var subscriberCount: Int { subscribers.withLock { $0.continuations.count } }

    /// Hands `event`, something this daemon did, to every subscriber, and to the relay.
    public func publish(_ event: ServiceEvent) {
        deliver(event)
        relay.withLock { $0 }?(event)
    }

    /// Hands `event`, something another daemon did, to every subscriber (not back to the relay).
    public func publishFromElsewhere(_ event: ServiceEvent) {
        deliver(event)
    }

    /// Sends every event published from now on to `relay` as well (nil: to nobody).
    public func relayLocalEvents(_ relay: (@Sendable (ServiceEvent) -> Void)?) {
        self.relay.withLock { $0 = relay }
    }

    private func deliver(_ event: ServiceEvent) {
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(event) }
    }
}
