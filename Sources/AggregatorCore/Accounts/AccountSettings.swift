import ControlProtocol
import Foundation

/// An account's reading preferences (docs/ARCHITECTURE.md): Miniflux's user fields — theme, language, time
/// zone, entry order, entries per page, … — kept and echoed to the apps that set them, with
/// Miniflux's defaults and its rules for what a value may be (an app that shows them expects both).
/// Stored as a JSON object of the values that differ from the defaults.
public struct AccountSettings: Sendable, Equatable {
    /// The values set, by Miniflux's key; a key absent has its default.
    public private(set) var values: [String: JSONValue] = [:]

    public init() {}

    /// Reads the stored text; anything unreadable or unknown in it is dropped (defaults instead).
    public init(stored text: String) {
        guard let object = (try? JSONValue(parsing: Array(text.utf8)))?.object else { return }
        for (key, value) in object where Self.field(key)?.accepts(value) == true {
            values[key] = value
        }
    }

    /// The JSON object kept in the store.
    public var storedText: String {
        String(decoding: JSONValue.object(values).encoded(), as: UTF8.self)
    }

    /// Every setting, defaults filled in.
    public var all: [String: JSONValue] {
        var all = Dictionary(uniqueKeysWithValues: Self.fields.map { ($0.key, $0.defaultValue) })
        all.merge(values) { $1 }
        return all
    }

    public subscript(key: String) -> JSONValue? { values[key] ?? Self.field(key)?.defaultValue }

    /// The keys an update may carry.
    public static var keys: [String] { fields.map(\.key) }

    /// Applies `changes` (key → value; null leaves a setting as it is), all or none: the first value
    /// its rule refuses throws with Miniflux's message for it.
    public mutating func apply(_ changes: [String: JSONValue]) throws(AggregatorError) {
        var updated = values
        // Miniflux checks in its own order: the first refusal is the one an app shows.
        for field in Self.fields {
            guard var value = changes[field.key], !value.isNull else { continue }
            if field.key == "external_font_hosts", let text = value.string {
                value = .string(text.trimmingCharacters(in: .whitespaces))
            }
            if let refusal = field.refusal(value) { throw .invalidArgument(refusal) }
            updated[field.key] = value == field.defaultValue ? nil : value
        }
        values = updated
    }

    // MARK: - The fields

    struct Field: Sendable {
        let key: String
        let defaultValue: JSONValue
        /// Why a value is refused, or nil when it is accepted.
        let refusal: @Sendable (JSONValue) -> String?

        func accepts(_ value: JSONValue) -> Bool { refusal(value) == nil }
    }

    static func field(_ key: String) -> Field? { fields.first { $0.key == key } }

    static let themes = ["light_serif", "light_sans_serif", "dark_serif", "dark_sans_serif", "system_serif", "system_sans_serif"]
    static let languages = ["ar_SA", "de_DE", "el_EL", "en_US", "es_ES", "fi_FI", "fr_FR", "gl_ES", "hi_IN", "id_ID", "it_IT",
                            "ja_JP", "ko_KR", "nan_Latn_pehoeji", "nl_NL", "pl_PL", "pt_BR", "ro_RO", "ru_RU", "tr_TR",
                            "uk_UA", "zh_CN", "zh_TW"]

    static let fields: [Field] = [
        choice("theme", "light_serif", themes, "Invalid theme."),
        choice("language", "en_US", languages, "Invalid language."),
        Field(key: "timezone", defaultValue: "UTC") { isTimeZone($0.string) ? nil : "Invalid timezone." },
        choice("entry_sorting_direction", "asc", ["asc", "desc"], "Invalid entry direction."),
        choice("entry_sorting_order", "published_at", ["published_at", "created_at"], "Invalid entry order."),
        integer("entries_per_page", 100, 1...1000, "The number of entries per page is not valid."),
        choice("categories_sorting_order", "unread_count", ["alphabetical", "unread_count"], "Invalid categories sorting order."),
        choice("display_mode", "standalone", ["fullscreen", "standalone", "minimal-ui", "browser"], "Invalid web app display mode."),
        choice("gesture_nav", "tap", ["none", "tap", "swipe"], "Invalid gesture navigation."),
        integer("default_reading_speed", 265, 1...Int.max, "The reading speeds must be positive integers."),
        integer("cjk_reading_speed", 500, 1...Int.max, "The reading speeds must be positive integers."),
        choice("default_home_page", "unread", ["unread", "starred", "history", "feeds", "categories"], "Invalid default homepage!"),
        Field(key: "media_playback_rate", defaultValue: 1) { value in
            guard let rate = value.number, rate >= 0.25, rate <= 4 else { return "Playback speed is out of range" }
            return nil
        },
        Field(key: "block_filter_entry_rules", defaultValue: "") { FilterRuleSyntax.refusal($0.string, kind: "Block") },
        Field(key: "keep_filter_entry_rules", defaultValue: "") { FilterRuleSyntax.refusal($0.string, kind: "Keep") },
        Field(key: "external_font_hosts", defaultValue: "") { value in
            isDomainList(value.string) ? nil : "Invalid domain list. Please provide a space separated list of domains."
        },
        text("stylesheet"), text("custom_js"),
        flag("keyboard_shortcuts", true), flag("show_reading_time", true), flag("entry_swipe", true),
        flag("mark_read_on_view", true), flag("mark_read_on_media_player_completion", false),
        flag("always_open_external_links", false), flag("open_external_links_in_new_tab", true),
    ]

    private static func choice(_ key: String, _ defaultValue: String, _ allowed: [String], _ refusal: String) -> Field {
        Field(key: key, defaultValue: .string(defaultValue)) { value in
            value.string.map(allowed.contains) == true ? nil : refusal
        }
    }

    private static func integer(_ key: String, _ defaultValue: Int, _ range: ClosedRange<Int>, _ refusal: String) -> Field {
        Field(key: key, defaultValue: .from(defaultValue)) { value in
            value.int.map(range.contains) == true ? nil : refusal
        }
    }

    /// Free text (a style sheet, a script the web page of Miniflux runs): kept as given, up to 64 KiB.
    private static func text(_ key: String) -> Field {
        Field(key: key, defaultValue: "") { value in
            guard let text = value.string else { return "\(key) must be a string" }
            return text.utf8.count <= 65_536 ? nil : "\(key) is longer than 64 KiB"
        }
    }

    private static func flag(_ key: String, _ defaultValue: Bool) -> Field {
        Field(key: key, defaultValue: .bool(defaultValue)) { $0.bool == nil ? "\(key) must be true or false" : nil }
    }

    /// A zone the C library knows (tzdata's file for it), or UTC/GMT.
    static func isTimeZone(_ name: String?) -> Bool {
        guard let name, !name.isEmpty, name.count <= 64 else { return false }
        if name == "UTC" || name == "GMT" { return true }
        let safe = name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || "_-+/0123456789".unicodeScalars.contains($0) }
        guard safe, !name.hasPrefix("/"), !name.contains("..") else { return false }
        return FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/" + name)
    }

    /// Space-separated host names (Miniflux's rule: one space between names, each a dotted name).
    static func isDomainList(_ text: String?) -> Bool {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return false }
        return text.split(separator: " ", omittingEmptySubsequences: false).allSatisfy { isDomain(String($0).lowercased()) }
    }

    private static func isDomain(_ name: String) -> Bool {
        guard (1...253).contains(name.utf8.count) else { return false }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, let top = labels.last, top.count >= 2, top.allSatisfy({ $0 >= "a" && $0 <= "z" }) else {
            return false
        }
        return labels.dropLast().allSatisfy { label in
            (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                && label.allSatisfy { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "-" }
        }
    }
}

/// Miniflux's syntax of an account's filter rules: one rule a line, `Field=pattern`.
enum FilterRuleSyntax {
    static let fieldNames = ["EntryTitle", "EntryURL", "EntryCommentsURL", "EntryContent", "EntryAuthor", "EntryTag", "EntryDate"]
    /// At most this many rule lines (per account, and per subscription), of at most `maximumLineLength`
    /// characters: every arriving entry is judged by them (docs/SECURITY.md, "Filter rules").
    static let maximumLines = 100
    static let maximumLineLength = 500

    /// Why `rules` are refused (in Miniflux's words, `kind` "Block" or "Keep"), nil when they are
    /// accepted; empty rules are none.
    static func refusal(_ rules: String?, kind: String) -> String? {
        guard let rules else { return "Invalid \(kind) rule: the rules must be text" }
        guard !rules.isEmpty else { return nil }
        if let limit = limitRefusal(rules) { return "Invalid \(kind) rule: \(limit)" }
        for (index, line) in rules.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            guard let field = fieldNames.first(where: { line.hasPrefix($0) }) else {
                let options = fieldNames.map { "'\($0)'" }.joined(separator: ", ")
                return "Invalid \(kind) rule: rule #\(number) is missing a valid field name (Options: \(options))"
            }
            let rest = line.dropFirst(field.count)
            guard rest.first == "=" else {
                return "Invalid \(kind) rule: rule #\(number)'s pattern is required to be separated by a '='"
            }
            let pattern = String(rest.dropFirst())
            guard !pattern.isEmpty else { return "Invalid \(kind) rule: rule #\(number)'s pattern is not provided" }
            guard (try? BoundedRegex(pattern)) != nil else {
                return "Invalid \(kind) rule: rule #\(number)'s pattern is not a valid regex"
            }
        }
        return nil
    }

    /// Why `rules` are over the limits on lines and their length, or nil.
    static func limitRefusal(_ rules: String) -> String? {
        let lines = rules.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.count > maximumLines { return "\(lines.count) rules, over the limit of \(maximumLines) (a rule a line)" }
        if let long = lines.firstIndex(where: { $0.count > maximumLineLength }) {
            return "rule #\(long + 1) is \(lines[long].count) characters long, over the limit of \(maximumLineLength)"
        }
        return nil
    }
}
