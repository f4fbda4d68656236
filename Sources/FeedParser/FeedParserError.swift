/// Why a document could not be read at all. Recoverable problems are reported on the result instead.
public enum FeedParserError: Error, Equatable, CustomStringConvertible {
    /// The input is larger than the configured cap.
    case tooLarge(limit: Int)
    /// An OPML import was given something else.
    case notOPML(String)

    public var description: String {
        switch self {
        case .tooLarge(let limit): "document is larger than the \(limit)-byte limit"
        case .notOPML(let reason): "not an OPML document: \(reason)"
        }
    }
}
