/// The release of aggregatord and aggregatorctl: the one place the version is written.
public enum AggregatorVersion {
    /// Semantic version of this build, shown by `--version`, `status` and the fetcher's User-Agent.
    public static let current = "0.1.0"
}
