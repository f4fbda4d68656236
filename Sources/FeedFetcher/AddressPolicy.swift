import Glibc

/// Which resolved addresses the fetcher may connect to (docs/ARCHITECTURE.md, "Fetching").
///
/// Link-local ranges (169.254.0.0/16, fe80::/10) hold cloud metadata services and are always
/// refused. Loopback and private ranges are refused only with `denyPrivateNetworks`, because
/// self-hosted bridges on the LAN are common. The check runs on the address DNS returned, so a
/// public name that resolves to a forbidden address is refused too.
public struct AddressPolicy: Sendable, Equatable {
    /// Also refuse loopback, RFC 1918, carrier-grade NAT and IPv6 unique-local addresses.
    public var denyPrivateNetworks: Bool
    /// The setting that refuses them, named in the refusal (`private-networks = none`).
    public var reason: String

    public init(denyPrivateNetworks: Bool = false, reason: String = "private-networks = none") {
        self.denyPrivateNetworks = denyPrivateNetworks
        self.reason = reason
    }

    /// Why an address was refused, or nil when it may be used.
    public func refusal(forAddress address: String) -> String? {
        guard let bytes = Self.parse(address) else { return "not an IP address: \(address)" }
        let kind = Self.classify(bytes)
        switch kind {
        case .linkLocal:
            return "address \(address) is link-local (refused: cloud metadata range)"
        case .unspecified:
            return "address \(address) is unspecified"
        case .loopback, .privateNetwork:
            guard denyPrivateNetworks else { return nil }
            return "address \(address) is \(kind == .loopback ? "loopback" : "a private network") "
                + "(refused: \(reason))"
        case .global:
            return nil
        }
    }

    // MARK: - Classification

    enum Kind { case global, loopback, privateNetwork, linkLocal, unspecified }

    /// The address as 4 (IPv4) or 16 (IPv6) bytes.
    static func parse(_ address: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    static func classify(_ bytes: [UInt8]) -> Kind {
        if bytes.count == 16 {
            // IPv4-mapped (::ffff:a.b.c.d) addresses reach the IPv4 host: judge them as IPv4.
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                return classify(Array(bytes[12..<16]))
            }
            return classifyIPv6(bytes)
        }
        return classifyIPv4(bytes)
    }

    private static func classifyIPv4(_ b: [UInt8]) -> Kind {
        switch (b[0], b[1]) {
        case (0, _): return .unspecified                       // 0.0.0.0/8
        case (127, _): return .loopback                        // 127.0.0.0/8
        case (169, 254): return .linkLocal                     // 169.254.0.0/16
        case (10, _), (192, 168): return .privateNetwork       // RFC 1918
        case (172, 16...31): return .privateNetwork            // RFC 1918
        case (100, 64...127): return .privateNetwork           // RFC 6598 carrier-grade NAT
        default: return .global
        }
    }

    private static func classifyIPv6(_ b: [UInt8]) -> Kind {
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }                       // ::
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }    // ::1
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return .linkLocal }               // fe80::/10
        if b[0] & 0xfe == 0xfc { return .privateNetwork }                           // fc00::/7
        return .global
    }
}
