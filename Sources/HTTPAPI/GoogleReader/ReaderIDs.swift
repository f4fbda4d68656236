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

/// Google Reader item ids: an entry's id plus 10^15 (docs/ARCHITECTURE.md, "Google Reader item ids"),
/// so that each form apps send back names one entry. Item refs give the id as a plain decimal, 16
/// digits as FreshRSS's are; contents give the long form, `tag:google.com,2005:reader/item/` and 16
/// hex digits. The id's 16 hex digits always start with "0003" and its decimal never with 0, so a
/// bare 16-digit id is read without doubt: a leading 0 makes it hex (Reeder sends the long form's
/// digits alone), anything else decimal (Liferea, Readrops). Ids given before (entry ids, refs
/// zero-padded to 16 decimal digits) name nothing now: an app holding them syncs again.
enum ReaderItemID {
    static let longPrefix = "tag:google.com,2005:reader/item/"
    /// Added to an entry's id.
    static let offset: Int64 = 1_000_000_000_000_000

    /// The long form: 16 hex digits, zero-padded.
    static func long(_ id: Int64) -> String {
        let hex = String(UInt64(id + offset), radix: 16)
        return longPrefix + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }

    /// The short form `stream/items/ids` gives: decimal.
    static func short(_ id: Int64) -> String {
        String(id + offset)
    }

    /// An entry id from the long form (its hex padded or not), bare hex, or the short form (decimal);
    /// nil for anything else, or for an id that names no entry (below 10^15 + 1).
    static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let value: UInt64?
        if trimmed.hasPrefix(longPrefix) {
            value = hex(String(trimmed.dropFirst(longPrefix.count)))
        } else if !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) {
            value = trimmed.count == 16 && trimmed.first == "0" ? hex(trimmed) : UInt64(trimmed)
        } else {
            value = hex(trimmed)
        }
        guard let value, value > UInt64(offset), value - UInt64(offset) < UInt64(Int64.max) else { return nil }
        return Int64(value - UInt64(offset))
    }

    private static func hex(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.count <= 16 else { return nil }
        return UInt64(text, radix: 16)
    }
}
