/// What one regular account may hold, so that strangers sharing a server cannot fill it (docs/SECURITY.md,
/// "Quotas"). Admins are not limited. Nil is unlimited (`0` in the configuration).
public struct Quotas: Sendable, Equatable {
    /// `max-subscriptions`: feeds followed.
    public var subscriptions: Int? = 2_000
    /// `max-import-bytes`: the largest OPML document imported at once; the import routes' body limit.
    public var importBytes: Int? = 5 << 20
    /// `max-tokens`: API tokens held.
    public var tokens: Int? = 50

    public init() {}

    /// The quotas `values` (configuration keys) set, the others at their defaults.
    static func resolve(_ values: [String: String]) throws(ConfigurationError) -> Quotas {
        var quotas = Quotas()
        quotas.subscriptions = try count("max-subscriptions", values, default: quotas.subscriptions)
        quotas.tokens = try count("max-tokens", values, default: quotas.tokens)
        if let text = values["max-import-bytes"] {
            guard let bytes = ConfigurationValues.bytes(text), bytes == 0 || (1 << 10...1 << 30).contains(bytes) else {
                throw .invalidValue(key: "max-import-bytes", value: text,
                                    expected: "a size from 1K to 1G, such as 5M, or 0 for no limit")
            }
            quotas.importBytes = bytes == 0 ? nil : bytes
        }
        return quotas
    }

    private static func count(_ key: String, _ values: [String: String], default fallback: Int?) throws(ConfigurationError) -> Int? {
        guard let text = values[key] else { return fallback }
        guard let number = Int(text), (0...10_000_000).contains(number) else {
            throw .invalidValue(key: key, value: text, expected: "a whole number from 0 (no limit) to 10000000")
        }
        return number == 0 ? nil : number
    }

    /// The values as the configuration writes them.
    var settingValues: [String: String] {
        ["max-subscriptions": String(subscriptions ?? 0), "max-tokens": String(tokens ?? 0),
         "max-import-bytes": importBytes.map(ConfigurationValues.sizeText(bytes:)) ?? "0"]
    }

    static let keys: [(name: String, summary: String)] = [
        ("max-subscriptions", "feeds a regular account may follow (default 2000; 0: no limit)"),
        ("max-import-bytes", "largest OPML file a regular account may import, and the import routes' body limit "
            + "(default 5M; 0: no limit)"),
        ("max-tokens", "API tokens a regular account may hold (default 50; 0: no limit)"),
    ]
}
