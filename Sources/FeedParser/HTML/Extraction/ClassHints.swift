/// What an element's `class` and `id` say about it, after the hints the known readability algorithms use
/// (Arc90's, Mozilla's): words such as `entry-content` mark the article, `comments` or `share` boilerplate.
struct ClassHints {
    /// +25 for each of `class` and `id` that holds a positive word, −25 for each that holds a negative one.
    private(set) var weight = 0
    private(set) var isPositive = false
    /// Named like boilerplate (comments, share buttons, ads, related links): removed before scoring, even
    /// beside a positive word (`entry-comments`, `in-article-ad`), unless it holds much of the page's text.
    private(set) var isBoilerplate = false
    /// Named like the page's frame (`header`, `widget`): removed before scoring unless a word is positive.
    private(set) var isUnlikely = false

    /// The hints of an element whose `class` and `id` were read already (a page repeats its class names:
    /// `PageTree` reads each distinct one once).
    init(_ className: NameHints?, _ id: NameHints?) {
        for name in [className, id] {
            guard let name else { continue }
            if name.isPositive { weight += 25 }
            if name.isNegative { weight -= 25 }
            isPositive = isPositive || name.isPositive
            isBoilerplate = isBoilerplate || name.isBoilerplate
            isUnlikely = isUnlikely || name.isUnlikely
        }
    }

    /// What one `class` list or `id` says.
    struct NameHints {
        private(set) var isPositive = false
        private(set) var isNegative = false
        private(set) var isBoilerplate = false
        private(set) var isUnlikely = false

        init(_ full: String) {
            guard !full.isEmpty else { return }
            let value = String(full.prefix(ClassHints.longestValue))
            let tokens = ClassHints.tokens(of: value)
            // A short positive word must match whole: `posted-on` and `pager` are not the post.
            isPositive = tokens.contains { ClassHints.matches($0, ClassHints.positiveWords, shortestPrefix: 5) }
            let screenReaderOnly = ClassHints.isScreenReaderOnly(value)
            isBoilerplate = tokens.contains { ClassHints.matches($0, ClassHints.boilerplateWords) } || screenReaderOnly
            isUnlikely = tokens.contains { ClassHints.matches($0, ClassHints.unlikelyWords) }
            isNegative = isBoilerplate || isUnlikely || tokens.contains { ClassHints.matches($0, ClassHints.negativeWords) }
        }
    }

    /// Longer class lists are read this far only: hostile pages carry megabytes in one attribute.
    private static let longestValue = 256

    /// Whether the element should go before scoring; `holdsMostText` spares a wrapper such as
    /// `content-sidebar-wrap` that happens to carry a boilerplate word.
    func isRemovable(holdsMostText: Bool) -> Bool {
        (isBoilerplate && (!isPositive || !holdsMostText)) || (isUnlikely && !isPositive)
    }

    // The article's own containers: `entry-content`, `post-body`, `articleBody`, `main-content`.
    private static let positiveWords: Set<String> = [
        "article", "body", "content", "entry", "hentry", "main", "page", "post", "text", "blog", "story", "prose",
    ]
    // Boilerplate whatever else the name says.
    private static let boilerplateWords: Set<String> = [
        "ad", "ads", "advert", "advertisement", "adsense", "sponsor", "sponsored", "share", "sharing", "social",
        "promo", "related", "newsletter", "subscribe", "subscription", "cookie", "consent", "gdpr", "popup", "modal",
        "outbrain", "taboola", "comment", "disqus", "breadcrumb", "pagination", "pager", "signature", "sidebar",
        "footer", "nav", "navbar", "navigation", "menu", "toolbar", "respond",
    ]
    // The page's frame: fine inside an article's own name (`entry-header`).
    private static let unlikelyWords: Set<String> = [
        "header", "masthead", "banner", "skip", "login", "signup", "widget", "extra", "supplemental", "rss",
        "shoutbox", "skyscraper", "remark", "replies", "agegate",
    ]
    // Lowers the score only: a footnote or a meta line may belong to the article.
    private static let negativeWords: Set<String> = ["meta", "footnote", "tags", "tag", "hidden", "print", "byline"]

    /// Lower-cased words of a class list or id: split at anything but letters and digits, and where
    /// camelCase starts a word (`relatedPosts` → related, posts).
    static func tokens(of value: String) -> [String] {
        if let tokens = asciiTokens(of: value) { return tokens }
        var tokens: [String] = []
        var current = ""
        var previousWasLower = false
        for character in value {
            guard character.isLetter || character.isNumber else {
                if !current.isEmpty { tokens.append(current) }
                current = ""
                previousWasLower = false
                continue
            }
            if character.isUppercase, previousWasLower, !current.isEmpty {
                tokens.append(current)
                current = ""
            }
            previousWasLower = character.isLowercase || character.isNumber
            current += character.lowercased()
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    /// `tokens(of:)` for the usual all-ASCII name, by byte value: asking Unicode's tables of each
    /// character was a third of the page tree's time on a large page. Nil when `value` is not ASCII.
    private static func asciiTokens(of value: String) -> [String]? {
        var tokens: [String] = []
        var current: [UInt8] = []
        var previousWasLower = false
        for byte in value.utf8 {
            guard byte < 0x80 else { return nil }
            let isUpper = byte >= 0x41 && byte <= 0x5A
            let isLower = byte >= 0x61 && byte <= 0x7A
            let isDigit = byte >= 0x30 && byte <= 0x39
            guard isUpper || isLower || isDigit else {
                if !current.isEmpty { tokens.append(String(decoding: current, as: UTF8.self)) }
                current.removeAll(keepingCapacity: true)
                previousWasLower = false
                continue
            }
            if isUpper, previousWasLower, !current.isEmpty {
                tokens.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            }
            previousWasLower = isLower || isDigit
            current.append(isUpper ? byte | 0x20 : byte)
        }
        if !current.isEmpty { tokens.append(String(decoding: current, as: UTF8.self)) }
        return tokens
    }

    /// `token` is one of `words`, or starts with one of its words of `shortestPrefix` letters or more
    /// (`comments`, `sharedaddy`, `menubar`), but a short word must match whole (`ad` is not `address`).
    private static func matches(_ token: String, _ words: Set<String>, shortestPrefix: Int = 4) -> Bool {
        if words.contains(token) { return true }
        guard token.count > shortestPrefix else { return false }
        for length in shortestPrefix..<token.count where words.contains(String(token.prefix(length))) {
            return true
        }
        return false
    }

    /// "Skip to content" and other text only screen readers are meant to read.
    private static func isScreenReaderOnly(_ value: String) -> Bool {
        let lowered = value.lowercased()
        return ["sr-only", "screen-reader", "visually-hidden", "visuallyhidden"].contains { lowered.contains($0) }
    }
}
