import Foundation

/// Google Reader's names for things: streams (a feed, a label, or a state such as reading-list) and
/// item ids, in the four forms clients send them.
enum ReaderStream: Equatable {
    case readingList
    case read
    case starred
    case keptUnread
    /// Not a state Google kept, but one clients ask for (Readrops: `xt=…/unread` for the read ids).
    case unread
    case label(String)
    case feed(Int64)
    case feedURL(String)

    static let readingListID = "user/-/state/com.google/reading-list"
    static let readID = "user/-/state/com.google/read"
    static let starredID = "user/-/state/com.google/starred"
    static let keptUnreadID = "user/-/state/com.google/kept-unread"
    static let unreadID = "user/-/state/com.google/unread"

    /// Reads a stream id; `user/<anything>/…` is the same as `user/-/…`. Nil for one we do not know.
    init?(_ text: String) {
        var parts = text.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        if text.hasPrefix("feed/") {
            let rest = String(text.dropFirst(5))
            if let id = Int64(rest), id > 0 { self = .feed(id) } else if !rest.isEmpty { self = .feedURL(rest) } else { return nil }
            return
        }
        guard parts.count == 4, parts[0] == "user" else { return nil }
        parts[1] = "-"
        switch (parts[2], parts[3]) {
        case ("state", "com.google/reading-list"): self = .readingList
        case ("state", "com.google/read"): self = .read
        case ("state", "com.google/starred"): self = .starred
        case ("state", "com.google/kept-unread"): self = .keptUnread
        case ("state", "com.google/unread"): self = .unread
        case ("label", let name) where !name.isEmpty: self = .label(name)
        default: return nil
        }
    }

    var id: String {
        switch self {
        case .readingList: Self.readingListID
        case .read: Self.readID
        case .starred: Self.starredID
        case .keptUnread: Self.keptUnreadID
        case .unread: Self.unreadID
        case .label(let name): "user/-/label/\(name)"
        case .feed(let id): "feed/\(id)"
        case .feedURL(let url): "feed/\(url)"
        }
    }
}

enum ReaderItemID {
    static let longPrefix = "tag:google.com,2005:reader/item/"

    /// The long form: 16 hex digits, zero-padded.
    static func long(_ id: Int64) -> String {
        let hex = String(UInt64(bitPattern: id), radix: 16)
        return longPrefix + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }

    /// The short form `stream/items/ids` gives: decimal, zero-padded to 16 digits as FreshRSS's ids
    /// are (Readrops turns it into the long form by converting it to hex padded to the decimal's own
    /// length: "26" became "…/item/1a" and matched no item, "0000000000000026" gives "…/item/000000000000001a").
    static func short(_ id: Int64) -> String {
        let decimal = String(id)
        return String(repeating: "0", count: max(0, 16 - decimal.count)) + decimal
    }

    /// An entry id from the long form (padded or not), the short form (decimal, padded or not), or
    /// bare hex: all digits is decimal, as FreshRSS reads it; anything else hex. Nil for what is none
    /// of these, or not below 2^63.
    static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix(longPrefix) { return hex(String(trimmed.dropFirst(longPrefix.count))) }
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) {
            guard let value = Int64(trimmed), value > 0 else { return nil }
            return value
        }
        return hex(trimmed)
    }

    private static func hex(_ text: String) -> Int64? {
        guard !text.isEmpty, text.count <= 16, let value = UInt64(text, radix: 16), value > 0, value < UInt64(Int64.max) else {
            return nil
        }
        return Int64(value)
    }
}
