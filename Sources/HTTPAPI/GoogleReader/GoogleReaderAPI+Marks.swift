import AggregatorCore
import ControlProtocol
import FeedParser
import FeedStore
import Foundation
import HTTPServer

/// Google Reader's marks: states of single items (`edit-tag`) and of whole streams.
extension GoogleReaderAPI {
    // MARK: - Marks

    /// `a` (add) and `r` (remove) states for every `i`: read, starred, kept-unread; labels on
    /// single items are not kept and are accepted as done.
    func editTag(_ request: ReaderRequest) async throws -> HTTPResponse {
        var ids: [Int64] = []
        for text in request.values("i") {
            guard let id = ReaderItemID.parse(text) else { throw ReaderError("not an item id: \(text)") }
            ids.append(id)
        }
        guard ids.count <= 10_000 else { throw ReaderError("at most 10000 items a request") }
        var read: Bool?
        var starred: Bool?
        for (values, adding) in [(request.values("a"), true), (request.values("r"), false)] {
            for tag in values {
                switch ReaderStream(tag) {
                case .read?: read = adding
                case .keptUnread?: read = !adding
                case .starred?: starred = adding
                default: break
                }
            }
        }
        if !ids.isEmpty, read != nil || starred != nil { _ = try await service.mark(.ids(ids.map { EntryID($0) }), read: read, starred: starred, for: request.account) }
        return .text("OK")
    }

    /// `s` (a stream) read, up to `ts` (microseconds; what was stored before the client last looked),
    /// in one transaction of the store's.
    func markAllAsRead(_ request: ReaderRequest) async throws -> HTTPResponse {
        guard let text = request.value("s"), let stream = ReaderStream(text) else { throw ReaderError("s must be a stream id") }
        var query = ArticleQuery(unreadOnly: true)
        switch stream {
        case .readingList, .keptUnread, .unread: break
        case .read: return .text("OK")  // read already
        case .starred: query.starredOnly = true
        case .label(let name): query.category = name
        case .feed(let id): query.feed = .id(SubscriptionID(id))
        case .feedURL(let url): query.feed = .url(url)
        }
        if let stamp = request.value("ts").flatMap(Double.init), stamp > 0 {
            // Microseconds as Google wrote them; a value too small for that is seconds (as Miniflux reads it).
            let seconds = stamp >= 1e14 ? stamp / 1_000_000 : stamp
            query.storedBefore = Date(timeIntervalSince1970: seconds + 1)
        }
        _ = try await service.mark(.matching(query), read: true, starred: nil, for: request.account)
        return .text("OK")
    }
}
