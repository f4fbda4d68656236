import Foundation

/// Limits on one transfer, all configurable.
public struct FetchLimits: Sendable, Equatable {
    public var connectTimeout: Duration = .seconds(10)
    public var totalTimeout: Duration = .seconds(30)
    /// A transfer slower than `lowSpeedBytesPerSecond` for `lowSpeedTime` is aborted.
    public var lowSpeedBytesPerSecond = 64
    public var lowSpeedTime: Duration = .seconds(15)
    /// Largest body accepted, counted after decompression (gzip bombs stop here).
    public var maximumBodyBytes = 16 << 20
    public var maximumRedirects = 5

    public init() {}
}

/// A conditional GET of one feed.
public struct FetchRequest: Sendable, Equatable {
    public var url: String
    /// Validators from the previous answer: sent as If-None-Match / If-Modified-Since.
    public var etag: String?
    public var lastModified: String?
    public var limits: FetchLimits
    /// At most this many transfers to the URL's host run at once, this one included; the fetcher holds
    /// the others back, their time limits not yet running, and starts the next one the moment one of
    /// them ends. Nil: no bound.
    public var perHostLimit: Int?
    /// When set, loopback and private addresses are refused for this fetch whatever the fetcher's
    /// policy, and this names the rule in the refusal (a regular account's fetch under
    /// `private-networks = admins`).
    public var refusingPrivateNetworks: String?
    /// What a feed's own fetch settings send (docs/ARCHITECTURE.md); nil: nothing but the defaults.
    public var credentials: FetchCredentials?

    public init(url: String, etag: String? = nil, lastModified: String? = nil, limits: FetchLimits = FetchLimits(),
                perHostLimit: Int? = nil, refusingPrivateNetworks: String? = nil, credentials: FetchCredentials? = nil) {
        self.refusingPrivateNetworks = refusingPrivateNetworks
        self.credentials = credentials
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.limits = limits
        self.perHostLimit = perHostLimit
    }

    /// The URL's host, lowercased, without user info or port: what `perHostLimit` counts by.
    var host: String { Self.host(of: url) }

    /// The host of `url` as `perHostLimit` counts it (also across daemons, when they claim feeds).
    public static func host(of url: String) -> String {
        var authority = Substring(url)
        if let schemeEnd = authority.range(of: "://") { authority = authority[schemeEnd.upperBound...] }
        authority = authority.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            authority = authority[...end]  // an IPv6 literal, its colons not a port
        } else if let colon = authority.lastIndex(of: ":") {
            authority = authority[..<colon]
        }
        return authority.lowercased()
    }
}

/// A feed's own fetch settings, as the request sends them: another user agent, a cookie for the
/// feed's host only (never for a host a redirect leads to), HTTP Basic credentials (curl sends them
/// to the feed's host only), and whether a certificate no authority signed is accepted.
public struct FetchCredentials: Sendable, Equatable {
    public var userAgent: String?
    /// `name=value` pairs separated by `;`, as a Cookie header carries them.
    public var cookie: String?
    public var username: String?
    public var password: String?
    public var allowsSelfSignedCertificates = false

    public init(userAgent: String? = nil, cookie: String? = nil, username: String? = nil, password: String? = nil,
                allowsSelfSignedCertificates: Bool = false) {
        (self.userAgent, self.cookie, self.username, self.password) = (userAgent, cookie, username, password)
        self.allowsSelfSignedCertificates = allowsSelfSignedCertificates
    }

    /// The cookie's pairs as lines of curl's cookie file for `host` alone (Netscape format): curl's
    /// cookie engine then sends them to that host and to no other, also after a redirect.
    static func cookieLines(_ cookie: String, host: String) -> [String] {
        cookie.split(separator: ";").compactMap { pair in
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            guard let equals = trimmed.firstIndex(of: "="), equals != trimmed.startIndex else { return nil }
            let name = trimmed[..<equals], value = trimmed[trimmed.index(after: equals)...]
            return [host, "FALSE", "/", "FALSE", "0", String(name), String(value)].joined(separator: "\t")
        }
    }
}

/// The answer to a fetch: a new document, or "not modified".
public struct FetchResponse: Sendable, Equatable {
    /// 200 (with a body) or 304 (without).
    public var status: Int
    public var body: Data
    /// The URL after redirects.
    public var finalURL: String
    /// Set when every redirect on the way was permanent (301/308): the feed's new address.
    public var permanentRedirect: String?
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?
    /// Seconds from Cache-Control max-age, or from Expires.
    public var freshFor: TimeInterval?
    /// Whether some connection of the fetch (redirects included) was to a non-public address: what it
    /// brought may be shown only to accounts whose own fetches may reach such addresses (docs/SECURITY.md).
    public var reachedNonPublicAddress = false
    /// Through a proxy, a redirect is answered rather than followed: where it points.
    var redirectLocation: String?

    public var isNotModified: Bool { status == 304 }
}
