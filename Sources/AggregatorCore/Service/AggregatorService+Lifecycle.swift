import ControlProtocol
import FeedFetcher
import FeedStore
import Foundation

extension AggregatorService {
    /// The service over `store`, with the fetcher, refresh pipeline and scheduler that
    /// `configuration` describes.
    /// - Parameter cluster: this daemon among others sharing its PostgreSQL database (docs/ARCHITECTURE.md).
    public convenience init(configuration: Configuration, store: FeedStore, logger: Logger, cluster: ClusterNode? = nil) {
        let fetcher = FeedFetcher(userAgent: UserAgent.header(version: AggregatorVersion.current),
                                  addressPolicy: configuration.privateNetworks.addressPolicy)
        let pipeline = RefreshPipeline(store: store, fetcher: fetcher, logger: logger.component("refresh"),
                                       width: configuration.maximumConnections,
                                       perHost: configuration.maximumConnectionsPerHost,
                                       limits: configuration.fetchLimits, policy: configuration.refreshPolicy)
        pipeline.setRegularAccountsRule(configuration.privateNetworks.refusalForRegularAccounts)
        fetcher.setProxy(configuration.proxy)
        let scheduler = Scheduler(store: store, pipeline: pipeline, logger: logger.component("scheduler"),
                                  retention: configuration.retention, findsIcons: configuration.feedIcons, cluster: cluster)
        self.init(store: store, scheduler: scheduler, pipeline: pipeline, standby: configuration.databaseRead)
        quotaSettings.withLock { $0 = configuration.quotas }
    }

    /// Refreshes on schedule until the calling task is cancelled (the daemon's stop signals).
    /// - Parameter onRound: called after each round (the daemon tells systemd).
    public func runScheduler(onRound: @Sendable (RefreshSummary) -> Void = { _ in }) async {
        await scheduler.run(onRound: onRound)
    }

    /// Whether the scheduler is alive, for the systemd watchdog.
    public var heartbeat: Heartbeat { scheduler.heartbeat }

    /// `--once`: every feed fetched now, then old entries expired.
    public func refreshEverythingOnce() async throws(AggregatorError) -> RefreshSummary {
        let feeds = try await write { try await $0.feedsToFetch() }
        let summary = if let cluster {
            try await refreshAcrossCluster(cluster, feeds: feeds, everything: true) { _, _ in }
        } else {
            await pipeline.refresh(feeds)
        }
        await scheduler.expireOldEntriesIfDue(now: Date())
        return summary
    }

    /// Applies what a running daemon can change of `configuration` (SIGHUP): fetch limits and
    /// bounds, the refresh policy, the address policy and proxy, retention, feed icons and quotas.
    public func apply(_ configuration: Configuration) async {
        pipeline.fetcher.setAddressPolicy(configuration.privateNetworks.addressPolicy)
        pipeline.fetcher.setProxy(configuration.proxy)
        pipeline.setRegularAccountsRule(configuration.privateNetworks.refusalForRegularAccounts)
        pipeline.setBounds(width: configuration.maximumConnections, perHost: configuration.maximumConnectionsPerHost)
        pipeline.setLimits(configuration.fetchLimits)
        pipeline.setPolicy(configuration.refreshPolicy)
        await scheduler.setRetention(configuration.retention)
        await scheduler.setFindsIcons(configuration.feedIcons)
        quotaSettings.withLock { $0 = configuration.quotas }
    }

    /// Ends every fetch in flight and the fetcher's thread; the service fetches nothing after it.
    public func stopFetching() {
        pipeline.fetcher.stop()
    }
}
