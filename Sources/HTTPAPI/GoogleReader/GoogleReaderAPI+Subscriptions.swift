import AggregatorCore
import ControlProtocol
import FeedParser
import FeedStore
import Foundation
import HTTPServer

/// Google Reader's subscriptions and labels: subscribe, edit, quick-add, OPML, rename and delete labels.
extension GoogleReaderAPI {
    // MARK: - Subscriptions and labels

    /// `ac=subscribe|unsubscribe|edit`, `s=feed/…` (a URL to subscribe to, else our feed), `t` a title,
    /// `a` a label to file it under, `r` a label to take it out of.
    func editSubscription(_ request: ReaderRequest) async throws -> HTTPResponse {
        guard let text = request.value("s"), let stream = ReaderStream(text) else { throw ReaderError("s must be feed/…") }
        let label = request.value("a").flatMap { tag -> String? in
            if case .label(let name)? = ReaderStream(tag) { return name }
            return nil
        }
        let title = request.value("t").flatMap { $0.isEmpty ? nil : $0 }
        let reference: FeedReference
        switch stream {
        case .feed(let id): reference = .id(SubscriptionID(id))
        case .feedURL(let url): reference = .url(url)
        default: throw ReaderError("s must be a feed (feed/ID or feed/URL)")
        }
        switch request.value("ac") ?? "edit" {
        case "subscribe":
            if case .feedURL(let url) = stream { _ = try await service.addFeed(url: url, category: label, title: title, for: request.account) }
        case "unsubscribe":
            _ = try await service.removeFeed(reference, for: request.account)
        case "edit":
            // `r` alone takes the feed out of its label (no category) when it names the label the feed is
            // in: a stale `r` must not lose the feed's real folder.
            var category = label
            if label == nil, case .label(let removed)? = request.value("r").flatMap(ReaderStream.init),
               try await service.feed(reference, for: request.account).category?.caseInsensitiveCompare(removed) == .orderedSame {
                category = ""
            }
            if title != nil || category != nil { _ = try await service.updateFeed(reference, FeedChanges(title: title, category: category), for: request.account) }
        case let other:
            throw ReaderError("ac must be subscribe, unsubscribe or edit, not \(other)")
        }
        return .text("OK")
    }

    /// `quickadd=URL` (a feed, or a page that links to one).
    func quickAdd(_ request: ReaderRequest) async throws -> HTTPResponse {
        guard var url = request.value("quickadd"), !url.isEmpty else { throw ReaderError("quickadd must be a URL") }
        if url.hasPrefix("feed/") { url = String(url.dropFirst(5)) }
        let added: FeedAddition
        do {
            added = try await service.addFeed(url: url, for: request.account)
        } catch {
            // As FreshRSS and Miniflux answer: a 200 that found nothing, which apps show as "not found"
            // (a store that cannot be used now is still an error).
            if case .unavailable = error { throw error }
            return MinifluxJSON.response(["numResults": 0, "query": .string(url), "error": .string(error.description)])
        }
        return MinifluxJSON.response(["numResults": 1, "query": .string(url), "streamId": .string(ReaderStream.feed(added.feed.id.rawValue).id),
                                      "streamName": .string(added.feed.title ?? added.feed.url)])
    }

    /// An OPML document as the body (NetNewsWire's and RSS Guard's import): subscribes to its feeds.
    /// "OK" as FreshRSS answers, then a line for each outline refused to the account.
    func importSubscriptions(_ request: ReaderRequest) async throws -> HTTPResponse {
        let summary = try await service.importOPML(request.http.body, for: request.account)
        return .text((["OK"] + summary.refused.map(\.reason)).joined(separator: "\n"))
    }

    /// Every subscription as OPML (RSS Guard's export).
    func exportSubscriptions(_ request: ReaderRequest) async throws -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "application/xml; charset=utf-8")],
                     body: Data(try await service.exportOPML(for: request.account).utf8))
    }

    /// `s=user/-/label/OLD&dest=user/-/label/NEW`: renames a category (into an existing one: merged).
    func renameTag(_ request: ReaderRequest) async throws -> HTTPResponse {
        guard case .label(let old)? = request.value("s").flatMap(ReaderStream.init),
              case .label(let new)? = request.value("dest").flatMap(ReaderStream.init) else {
            throw ReaderError("s and dest must be labels (user/-/label/NAME)")
        }
        _ = try await service.renameCategory(old, to: new, for: request.account)
        return .text("OK")
    }

    /// `s=user/-/label/NAME`: deletes the category; its feeds stay, filed under none.
    func disableTag(_ request: ReaderRequest) async throws -> HTTPResponse {
        guard case .label(let name)? = request.value("s").flatMap(ReaderStream.init) else {
            throw ReaderError("s must be a label (user/-/label/NAME)")
        }
        guard let category = try await service.categories(for: request.account).first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame })
        else { throw AggregatorError.notFound("no label \(name)") }
        try await service.removeCategory(id: category.id, for: request.account)
        return .text("OK")
    }
}
