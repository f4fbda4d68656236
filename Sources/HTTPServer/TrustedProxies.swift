import Foundation

/// The reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed: addresses and
/// networks (`127.0.0.0/8`, `::1`, `10.1.2.3`, `fd00::/8`). A request from one of them is taken to come
/// from the address its proxy names; from anyone else the headers are ignored, so a client cannot
/// claim another address (and escape the login throttle) by sending them itself.
public struct TrustedProxies: Sendable, Equatable, CustomStringConvertible {
    /// An address or network, as 16 bytes (IPv4 mapped into IPv6) and a prefix length over them.
    private struct Network: Sendable, Equatable {
        let bytes: [UInt8]
        let prefix: Int
        let text: String

        func contains(_ address: [UInt8]) -> Bool {
            var remaining = prefix
            for (mine, theirs) in zip(bytes, address) where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if mine & mask != theirs & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    private let networks: [Network]

    /// Loopback only: a proxy on the same machine (the usual nginx or Caddy in front).
    public static let loopback = TrustedProxies("127.0.0.0/8, ::1")!

    /// Parses a list separated by commas or spaces; `none` (or nothing) trusts nobody. Nil when an
    /// item is not a numeric address or network.
    public init?(_ text: String) {
        var networks: [Network] = []
        let items = text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        guard items != ["none"] else {
            self.networks = []
            return
        }
        for item in items {
            let parts = item.split(separator: "/", maxSplits: 1).map(String.init)
            guard let bytes = Self.bytes(of: parts[0]) else { return nil }
            let isV4 = !parts[0].contains(":")
            var prefix = 128
            if parts.count == 2 {
                guard let bits = Int(parts[1]), bits >= 0, bits <= (isV4 ? 32 : 128) else { return nil }
                prefix = isV4 ? 96 + bits : bits
            }
            networks.append(Network(bytes: bytes, prefix: prefix, text: item))
        }
        self.networks = networks
    }

    public var description: String { networks.isEmpty ? "none" : networks.map(\.text).joined(separator: ",") }

    public func trusts(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// Who sent `request`: its peer, or, when the peer is a trusted proxy, the nearest address in
    /// `X-Forwarded-For` that is not one of ours (read from the right: the proxy appends).
    public func client(of request: HTTPRequest) -> String {
        guard trusts(request.clientAddress), let forwarded = request.headers["x-forwarded-for"] else {
            return request.clientAddress
        }
        let hops = forwarded.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() where Self.bytes(of: hop) != nil {
            if !trusts(hop) { return hop }
        }
        return hops.first.flatMap { Self.bytes(of: $0) != nil ? $0 : nil } ?? request.clientAddress
    }

    /// Whether the client reached the proxy over HTTPS (`X-Forwarded-Proto: https` from a trusted proxy).
    public func isHTTPS(_ request: HTTPRequest) -> Bool {
        trusts(request.clientAddress) && request.headers["x-forwarded-proto"]?.lowercased() == "https"
    }

    /// 16 bytes for a numeric IPv4 or IPv6 address (IPv4 as `::ffff:a.b.c.d`), or nil.
    private static func bytes(of text: String) -> [UInt8]? {
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        var v4 = in_addr()
        guard inet_pton(AF_INET, text, &v4) == 1 else { return nil }
        return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + withUnsafeBytes(of: &v4) { Array($0) }
    }
}
