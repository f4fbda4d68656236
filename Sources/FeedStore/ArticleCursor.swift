import Foundation

/// The opaque position after the last article of a page: the sort key and id of that article.
/// Keyset pagination stays stable while new entries arrive and never scans past skipped rows.
struct ArticleCursor: Equatable {
    let sort: ArticleSort
    let number: Double?
    let text: String?
    let id: Int64

    var encoded: String {
        let object: [Any] = [sort.rawValue, number ?? NSNull(), text ?? NSNull(), id]
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return data.base64EncodedString()
    }

    init(sort: ArticleSort, number: Double?, text: String?, id: Int64) {
        self.sort = sort
        self.number = number
        self.text = text
        self.id = id
    }

    /// - Throws: `StoreError.Kind.invalidQuery` for a cursor this store did not make for this sort.
    init(decoding cursor: String, for sort: ArticleSort) throws(StoreError) {
        let invalid = StoreError(.invalidQuery, message: "invalid cursor '\(cursor.prefix(40))': use the next_cursor of the previous page with the same sort")
        guard let data = Data(base64Encoded: cursor),
              let object = try? JSONSerialization.jsonObject(with: data) as? [Any], object.count == 4,
              let name = object[0] as? String, name == sort.rawValue,
              let id = (object[3] as? NSNumber)?.int64Value else { throw invalid }
        self.init(sort: sort, number: (object[1] as? NSNumber)?.doubleValue, text: object[2] as? String, id: id)
    }
}
