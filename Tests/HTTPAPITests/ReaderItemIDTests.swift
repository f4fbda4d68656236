@testable import HTTPAPI
import Testing

/// Google Reader item ids (docs/ARCHITECTURE.md): every form the apps send back names the entry we
/// gave out, and no form of one entry's id names another.
@Suite struct ReaderItemIDTests {
    /// Entry ids across the range: small, with and without letters in their hex, large.
    static let entries: [Int64] = [1, 9, 10, 453, 1107, 4_096, 999_999, 123_456_789, 8_999_999_999_999_998]

    /// What we emit, and how each app sends it back (INTEROP: Reeder drops the prefix, NetNewsWire
    /// the padding, Liferea and Readrops send the decimal ref, Readrops also the long form it makes
    /// of it by padding the hex to the decimal's length).
    static func forms(of entry: Int64) -> [(app: String, form: String)] {
        let long = ReaderItemID.long(entry), short = ReaderItemID.short(entry)
        let hex = String(long.dropFirst(ReaderItemID.longPrefix.count))
        let unpadded = String(hex.drop { $0 == "0" })
        return [("FreshRSS-style long", long), ("NetNewsWire, unpadded", ReaderItemID.longPrefix + unpadded),
                ("Reeder, bare hex", hex), ("bare hex unpadded", unpadded), ("Liferea, decimal", short),
                ("Readrops, long from the decimal", ReaderItemID.longPrefix + String(repeating: "0", count: short.count - unpadded.count) + unpadded),
                ("spaces around", " \(short) ")]
    }

    @Test(arguments: entries)
    func everyFormNamesTheEntry(entry: Int64) {
        #expect(ReaderItemID.short(entry).count == 16 && ReaderItemID.short(entry).allSatisfy(\.isNumber))
        #expect(ReaderItemID.long(entry).count == ReaderItemID.longPrefix.count + 16)
        for (app, form) in Self.forms(of: entry) {
            #expect(ReaderItemID.parse(form) == entry, "\(app): \(form)")
        }
    }

    /// Ids given before the offset (entry ids; refs padded to 16 decimal digits) name nothing rather
    /// than another entry: "0000000000000453" was entry 453's ref, and read as hex it would be 1107.
    @Test func oldIdsAndNonsenseNameNothing() {
        for text in ["0000000000000453", "453", "1107", "tag:google.com,2005:reader/item/00000000000001c5",
                     "1c5", "", "xyz", "tag:google.com,2005:reader/item/", "-5", "1000000000000000",
                     "99999999999999999999999", "tag:google.com,2005:reader/item/ffffffffffffffff0"] {
            #expect(ReaderItemID.parse(text) == nil, "\(text)")
        }
    }

    /// No two entries share a form: each form of each entry parses to that entry only.
    @Test func formsAreDisjoint() {
        var named: [String: Int64] = [:]
        for entry in Self.entries {
            for (_, form) in Self.forms(of: entry) {
                #expect(named.updateValue(entry, forKey: form.trimmingCharacters(in: .whitespaces)) ?? entry == entry, "\(form)")
            }
        }
    }
}
