import Foundation

/// The opaque position after the last article of a page: the sort key and id of that article (keyset
/// pagination: stable while new entries arrive, never scanning past skipped rows); for a search by
/// relevance, the last-stored match of its window and how many of the window's ranks were shown.
struct ArticleCursor: Equatable {
    let sort: ArticleSort
    let number: Double?
    let text: String?
    let id: Int64
    /// Relevance: the id of the window's last-stored match, and the ranks shown so far.
    let window: Int64?
    let offset: Int?

    var encoded: String {
        var object: [Any] = [sort.rawValue, number ?? NSNull(), text ?? NSNull(), id]
        if let window, let offset { object += [window, offset] }
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return data.base64EncodedString()
    }

    init(sort: ArticleSort, number: Double?, text: String?, id: Int64, window: Int64? = nil, offset: Int? = nil) {
        self.sort = sort
        self.number = number
        self.text = text
        self.id = id
        self.window = window
        self.offset = offset
    }

    /// - Throws: `StoreError.Kind.invalidQuery` for a cursor this store did not make for this sort.
    init(decoding cursor: String, for sort: ArticleSort) throws(StoreError) {
        let invalid = StoreError(.invalidQuery, message: "invalid cursor '\(cursor.prefix(40))': use the next_cursor of the previous page with the same sort")
        guard let data = Data(base64Encoded: cursor),
              let object = try? JSONSerialization.jsonObject(with: data) as? [Any], object.count == 4 || object.count == 6,
              let name = object[0] as? String, name == sort.rawValue,
              let id = (object[3] as? NSNumber)?.int64Value else { throw invalid }
        let window = object.count == 6 ? (object[4] as? NSNumber)?.int64Value : nil
        let offset = object.count == 6 ? (object[5] as? NSNumber)?.intValue : nil
        guard (sort == .relevance) == (window != nil && offset != nil) else { throw invalid }
        self.init(sort: sort, number: (object[1] as? NSNumber)?.doubleValue, text: object[2] as? String, id: id,
                  window: window, offset: offset)
    }
}
