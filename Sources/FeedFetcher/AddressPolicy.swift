import Glibc

/// Which resolved addresses the fetcher may connect to (docs/ARCHITECTURE.md, "Fetching";
/// docs/SECURITY.md, "Addresses").
///
/// Link-local ranges (169.254.0.0/16, fe80::/10) hold cloud metadata services and are always
/// refused. Every other address that is not public is refused only with `denyPrivateNetworks`,
/// because self-hosted bridges on the LAN are common. "Not public" is every range of IANA's IPv4
/// and IPv6 special-purpose registries not marked globally reachable, plus multicast and
/// 240.0.0.0/4 (`AddressRanges`). The check runs on the address DNS returned, so a public name that
/// resolves to a forbidden address is refused too.
public struct AddressPolicy: Sendable, Equatable {
    /// Also refuse loopback, private and every other non-public range.
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
        switch AddressRanges.classify(bytes) {
        case .global:
            return nil
        case .linkLocal:
            return "address \(address) is link-local (refused: cloud metadata range)"
        case .unspecified:
            return "address \(address) is unspecified"
        case .nonPublic(let range):
            guard denyPrivateNetworks else { return nil }
            return "address \(address) is \(range) (refused: \(reason))"
        }
    }

    /// Whether `address` is a public one (false for garbage).
    public static func isPublic(_ address: String) -> Bool {
        guard let bytes = parse(address) else { return false }
        return AddressRanges.classify(bytes) == .global
    }

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
}

/// The special ranges, as tables read top to bottom: the first range that holds an address decides.
/// Sources: IANA's "IPv4 Special-Purpose Address Registry" and "IPv6 Special-Purpose Address
/// Registry" (a range whose "Globally Reachable" is False or N/A is non-public; the few globally
/// reachable blocks inside a non-public one come first), and IANA's IPv6 address space, where only
/// 2000::/3 is global unicast today.
enum AddressRanges {
    enum Kind: Equatable {
        case global
        case linkLocal
        case unspecified
        /// Named as a refusal reads: "loopback", "a private network", "multicast", …
        case nonPublic(String)
    }

    /// How an IPv6 range that carries an IPv4 address is judged: by the IPv4 address at this offset.
    private enum Rule {
        case kind(Kind)
        case embeddedIPv4(at: Int)
    }

    private struct Range {
        let prefix: [UInt8]
        let length: Int
        let rule: Rule

        init(_ cidr: String, _ rule: Rule) {
            let parts = cidr.split(separator: "/")
            prefix = AddressPolicy.parse(String(parts[0]))!
            length = Int(parts[1])!
            self.rule = rule
        }

        init(_ cidr: String, _ kind: Kind) { self.init(cidr, .kind(kind)) }

        func contains(_ bytes: [UInt8]) -> Bool {
            guard bytes.count == prefix.count else { return false }
            var remaining = length
            for index in prefix.indices where remaining > 0 {
                let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
                guard bytes[index] & mask == prefix[index] & mask else { return false }
                remaining -= 8
            }
            return true
        }
    }

    static func classify(_ bytes: [UInt8]) -> Kind {
        let table = bytes.count == 4 ? ipv4 : ipv6
        guard let range = table.first(where: { $0.contains(bytes) }) else {
            return bytes.count == 4 ? .global : .nonPublic("reserved (outside 2000::/3)")
        }
        switch range.rule {
        case .kind(let kind): return kind
        case .embeddedIPv4(let offset): return classify(Array(bytes[offset..<offset + 4]))
        }
    }

    private static let privateNetwork = Kind.nonPublic("a private network")

    private static let ipv4: [Range] = [
        Range("0.0.0.0/8", .unspecified),                                   // "this network"
        Range("127.0.0.0/8", .nonPublic("loopback")),
        Range("169.254.0.0/16", .linkLocal),
        Range("10.0.0.0/8", privateNetwork),                                // RFC 1918
        Range("172.16.0.0/12", privateNetwork),
        Range("192.168.0.0/16", privateNetwork),
        Range("100.64.0.0/10", .nonPublic("carrier-grade NAT (shared address space)")),
        Range("192.0.0.9/32", .global),                                     // PCP anycast
        Range("192.0.0.10/32", .global),                                    // TURN anycast
        Range("192.0.0.0/24", .nonPublic("reserved for IETF protocol assignments")),
        Range("192.0.2.0/24", .nonPublic("documentation (TEST-NET-1)")),
        Range("198.51.100.0/24", .nonPublic("documentation (TEST-NET-2)")),
        Range("203.0.113.0/24", .nonPublic("documentation (TEST-NET-3)")),
        Range("192.88.99.0/24", .nonPublic("the deprecated 6to4 relay anycast")),
        Range("198.18.0.0/15", .nonPublic("reserved for benchmarking")),
        Range("224.0.0.0/4", .nonPublic("multicast")),
        Range("240.0.0.0/4", .nonPublic("reserved (240.0.0.0/4, broadcast)")),
    ]

    private static let ipv6: [Range] = [
        Range("::/128", .unspecified),
        Range("::1/128", .nonPublic("loopback")),
        Range("::ffff:0:0/96", .embeddedIPv4(at: 12)),                      // IPv4-mapped
        Range("::/96", .embeddedIPv4(at: 12)),                              // IPv4-compatible
        Range("64:ff9b::/96", .embeddedIPv4(at: 12)),                       // NAT64
        Range("64:ff9b:1::/48", .nonPublic("local-use IPv4/IPv6 translation")),
        Range("100::/64", .nonPublic("discard-only")),
        Range("100:0:0:1::/64", .nonPublic("a dummy prefix")),
        Range("2001:1::1/128", .global),                                    // PCP anycast
        Range("2001:1::2/128", .global),                                    // TURN anycast
        Range("2001:1::3/128", .global),                                    // DNS-SD SRP anycast
        Range("2001:3::/32", .global),                                      // AMT
        Range("2001:4:112::/48", .global),                                  // AS112-v6
        Range("2001:20::/28", .global),                                     // ORCHIDv2
        Range("2001:30::/28", .global),                                     // drone remote ID
        Range("2001::/23", .nonPublic("reserved for IETF protocol assignments (Teredo, benchmarking, …)")),
        Range("2001:db8::/32", .nonPublic("documentation")),
        Range("2002::/16", .embeddedIPv4(at: 2)),                           // 6to4
        Range("3fff::/20", .nonPublic("documentation")),
        Range("5f00::/16", .nonPublic("segment routing")),
        Range("fc00::/7", privateNetwork),                                  // unique-local
        Range("fe80::/10", .linkLocal),
        Range("fec0::/10", .nonPublic("site-local (deprecated)")),
        Range("ff00::/8", .nonPublic("multicast")),
        Range("2000::/3", .global),
    ]
}
