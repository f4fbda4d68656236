import Foundation

/// Why a fetch gave no usable document. `description` becomes the feed's `last_error`.
public enum FetchError: Error, Equatable, CustomStringConvertible {
    /// DNS, TLS, connection or timeout: no HTTP answer at all.
    case transport(String)
    /// A 4xx/5xx answer; `retryAfter` from a 429/503's Retry-After header.
    case httpStatus(Int, retryAfter: TimeInterval?)
    /// The body was larger than the limit (by Content-Length or once decompressed).
    case tooLarge(limit: Int)
    /// The server's address is not allowed by the address policy.
    case refusedAddress(String)
    /// Not an http(s) URL, or a redirect to another scheme.
    case unsupportedURL(String)
    /// The fetch was cancelled (shutdown, or the caller went away).
    case cancelled

    public var description: String {
        switch self {
        case .transport(let reason): "network error: \(reason)"
        case .httpStatus(let status, let retryAfter):
            "server answered HTTP \(status)" + (retryAfter.map { ", retry after \(Int($0)) s" } ?? "")
        case .tooLarge(let limit): "response larger than \(limit) bytes"
        case .refusedAddress(let reason): "refused: \(reason)"
        case .unsupportedURL(let url): "not an http(s) URL: \(url)"
        case .cancelled: "cancelled"
        }
    }
}
