import FeedParser
import Foundation

/// `storebench sanitize FARM`: what sanitizing every entry's HTML costs, to decide whether to do it
/// once at ingest or each time content is served: parses the farm's feeds, then sanitizes every
/// entry's content (else summary) three times, and prints entries, bytes in and out, and the best
/// run's microseconds per entry.
enum SanitizeBench {
    static func run(farm: String) throws {
        let directory = URL(fileURLWithPath: farm).appendingPathComponent("feeds")
        var documents: [(html: String, base: String?)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            guard let feed = try? ParsedFeed(parsing: data, source: .init(documentURL: "http://127.0.0.1/feeds/" + name)) else {
                continue
            }
            for entry in feed.entries {
                if let html = entry.content ?? entry.summary { documents.append((html, entry.link)) }
            }
        }
        let bytesIn = documents.reduce(0) { $0 + $1.html.utf8.count }
        var best = Double.infinity
        var bytesOut = 0
        for _ in 0..<3 {
            let start = ContinuousClock.now
            bytesOut = 0
            for document in documents { bytesOut += HTMLSanitizer.sanitize(document.html, baseURL: document.base).utf8.count }
            let elapsed = (ContinuousClock.now - start).components
            best = min(best, Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        }
        // Properties every output keeps: sanitizing it again changes nothing; no script or handler survives.
        var unstable = 0
        var unsafe = 0
        for document in documents {
            let once = HTMLSanitizer.sanitize(document.html, baseURL: document.base)
            if HTMLSanitizer.sanitize(once, baseURL: document.base) != once { unstable += 1 }
            let lower = once.lowercased()
            if lower.contains("<script") || lower.contains("javascript:") || lower.range(of: #"\son[a-z]+="#, options: .regularExpression) != nil {
                unsafe += 1
            }
        }
        print(String(format: "RESULT {\"entries\": %d, \"bytes_in\": %d, \"bytes_out\": %d, \"seconds\": %.3f, "
            + "\"us_per_entry\": %.1f, \"changed_by_a_second_pass\": %d, \"unsafe\": %d}", documents.count, bytesIn, bytesOut,
            best, best * 1e6 / Double(max(1, documents.count)), unstable, unsafe))
    }
}
