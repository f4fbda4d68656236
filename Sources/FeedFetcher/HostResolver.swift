import Foundation
import Glibc
import Synchronization

/// Looks names up as the fetcher's connections will (getaddrinfo), for checks made before any
/// request: whether an account may subscribe to a URL (docs/SECURITY.md, "One gate for subscriptions").
public enum HostResolver {
    /// The numeric addresses `host` stands for: itself when it is an address (`[::1]` too), else what
    /// DNS answers; nil when the name does not resolve within `timeout` (the lookup itself, which
    /// cannot be cancelled, ends on its own thread).
    public static func addresses(of host: String, timeout: Duration = .seconds(5)) async -> [String]? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if AddressPolicy.parse(bare) != nil { return [bare] }
        guard !bare.isEmpty else { return nil }
        return await withCheckedContinuation { continuation in
            let answer = Answer(continuation)
            DispatchQueue.global().async { answer.give(lookUp(bare)) }
            let (seconds, attoseconds) = timeout.components
            DispatchQueue.global().asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18) { answer.give(nil) }
        }
    }

    /// The caller's continuation, resumed by whichever comes first: the lookup or the timeout.
    private final class Answer: Sendable {
        private let continuation: Mutex<CheckedContinuation<[String]?, Never>?>

        init(_ continuation: CheckedContinuation<[String]?, Never>) {
            self.continuation = Mutex(continuation)
        }

        func give(_ addresses: [String]?) {
            continuation.withLock { waiting in
                waiting?.resume(returning: addresses)
                waiting = nil
            }
        }
    }

    /// getaddrinfo's answers for TCP, as numeric text; nil when it fails.
    private static func lookUp(_ host: String) -> [String]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var first: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &first) == 0 else { return nil }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var next = first
        while let info = next {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(info.pointee.ai_addr, info.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0,
                           NI_NUMERICHOST) == 0 {
                let address = String(cString: text)
                if !addresses.contains(address) { addresses.append(address) }
            }
            next = info.pointee.ai_next
        }
        return addresses
    }
}
