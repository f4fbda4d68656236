@testable import FeedStore
import Foundation
import FuzzSupport

// The search box on any text: the FTS5 expression it makes is always one SQLite accepts (the input
// is never read as FTS5 syntax), or the query is refused as empty.
let database = try! Database(path: ":memory:")
try! database.execute("CREATE VIRTUAL TABLE t USING fts5(title, body, author, prefix='2 3')")
try! database.execute("INSERT INTO t VALUES ('café au lait', 'hello world \"quoted\"', 'Ann')")
let match = try! database.statement("SELECT count(*) FROM t WHERE t MATCH ?1")

runFuzzer { data, size in
    guard let query = try? SearchQuery(text(data, size)) else { return 0 }
    do {
        try match.query([.text(query.expression)]) { _ in }
    } catch {
        require(false, "FTS5 refused \(query.expression.debugDescription): \(error)")
    }
    return 0
}
