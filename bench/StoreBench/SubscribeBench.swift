import FeedStore
import Foundation

/// `storebench subscribe DB URLS ACCOUNTS PER_ACCOUNT`: a fresh store where ACCOUNTS accounts each
/// follow PER_ACCOUNT feeds drawn at random (seeded) from the URLS file (one URL a line, newsboat's
/// `urls` format: the first word of each line not starting with #), or, with ACCOUNTS 1 and
/// PER_ACCOUNT 0, one account following every URL. Nothing is fetched: the daemon's `--once` on the
/// store then fetches the round (bench/accounts_round.sh).
enum SubscribeBench {
    static func run(databasePath: String, urlsPath: String, accounts: Int, perAccount: Int) async throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
        let urls = try String(contentsOfFile: urlsPath, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
            guard !line.hasPrefix("#"), let first = line.split(separator: " ").first else { return nil }
            return String(first)
        }
        let store = try FeedStore(path: databasePath)
        srand48(28)
        var followed: Set<String> = []
        for index in 0..<accounts {
            let account: AccountID
            if index == 0 {
                account = 1
            } else {
                guard let id = try await store.addAccount(name: String(format: "user%04d", index), passwordHash: "", isAdmin: false) else {
                    fatalError("could not add account \(index)")
                }
                account = id
            }
            var picked: [String]
            if perAccount == 0 {
                picked = urls
            } else {
                var chosen: Set<Int> = []
                while chosen.count < min(perAccount, urls.count) { chosen.insert(Int(drand48() * Double(urls.count))) }
                picked = chosen.sorted().map { urls[$0] }
            }
            followed.formUnion(picked)
            try await store.addFeeds(picked.map { FeedStore.NewFeed(url: $0) }, account: account)
        }
        print(#"RESULT {"accounts": \#(accounts), "feeds": \#(followed.count), "urls": \#(urls.count)}"#)
    }
}
