/// What an edit of a subscription changes (`FeedStore.updateFeed`): nil leaves a field as it is, ""
/// clears a text.
public struct FeedChanges: Sendable, Equatable {
    public var title: String?
    /// The category to file it under ("" for none), made when it does not exist.
    public var category: String?
    public var url: String?
    public var siteURL: String?
    public var disabled: Bool?
    public var hideGlobally: Bool?
    /// The article selector of its pages (Miniflux's `scraper_rules`).
    public var scraperRules: String?
    /// Filter rules: a regular expression each over title, URL and author.
    public var blocklist: String?
    public var keeplist: String?
    public var fetchSettings = FetchSettingsChange()
    /// Whether its new entries' pages are fetched for their full text.
    public var crawler: Bool?

    public init(title: String? = nil, category: String? = nil) {
        (self.title, self.category) = (title, category)
    }

    /// Whether it changes nothing.
    public var isEmpty: Bool {
        let given: [Any?] = [title, category, url, siteURL, disabled, hideGlobally, scraperRules, blocklist, keeplist, crawler]
        return !given.contains { $0 != nil } && fetchSettings.isEmpty
    }
}
