import FeedStore

/// Why the service could not do what a user asked, in terms every front end can map to its own
/// codes (a JSON-RPC error code per case for the control socket; HTTP statuses for the HTTP APIs).
/// `description` is a sentence for the user, naming the offending value.
public enum AggregatorError: Error, Equatable, CustomStringConvertible {
    /// The feed, article or category named does not exist.
    case notFound(String)
    /// The feed is subscribed already.
    case alreadySubscribed(String)
    /// An argument cannot be used as given (a URL that is not http(s), a limit out of range, a bad date).
    case invalidArgument(String)
    /// The request was understood but could not be carried out (no feed found at a page, an OPML
    /// file that cannot be read).
    case failed(String)
    /// The account asking may not do this (a regular account managing others): only admins may.
    case forbidden(String)
    /// The store cannot be used now (locked, full, read-only, failing): not the user's doing.
    case unavailable(String)
    /// Asked too often (a regular account's refreshes, docs/SECURITY.md): may be asked again in `retryAfter` seconds.
    case tooManyRequests(String, retryAfter: Int)

    public var description: String {
        switch self {
        case .notFound(let message), .alreadySubscribed(let message), .invalidArgument(let message),
             .failed(let message), .forbidden(let message), .unavailable(let message), .tooManyRequests(let message, _):
            message
        }
    }

    /// The service's reading of a store failure.
    init(_ error: StoreError) {
        switch error.kind {
        case .notFound: self = .notFound(error.description)
        case .invalidQuery: self = .invalidArgument(error.description)
        case .busy, .conflict: self = .unavailable("database busy: \(error.description)")
        case .notADatabase, .corrupt, .newerSchema, .readOnly, .cannotOpen, .failed: self = .unavailable(error.description)
        }
    }
}
