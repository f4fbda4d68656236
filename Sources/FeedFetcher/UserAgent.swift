import CCurl

/// The HTTP client identity the fetcher announces.
public enum UserAgent {
    /// `aggregatord/VERSION`, an honest User-Agent.
    public static func header(version: String) -> String {
        "aggregatord/\(version)"
    }

    /// The version of the libcurl the fetcher runs on, e.g. `libcurl/7.88.1 OpenSSL/3.0.15 …`.
    public static var libcurlVersion: String {
        String(cString: curl_version())
    }
}
