import CLibXML2

/// Counts over some text of the page: how much there is, how much of it is inside links, lists and
/// headings, and the elements that the cleaning rules weigh.
struct TextStats {
    /// Characters, each whitespace run counted as one.
    var characters = 0
    var linkCharacters = 0
    var listCharacters = 0
    var headingCharacters = 0
    var commas = 0
    var paragraphs = 0
    /// Images, videos and audio.
    var media = 0
    var listItems = 0
    var codeBlocks = 0
    /// `th`, `thead` and `caption`: what tells a data table from a layout one.
    var tableHeaders = 0

    var linkDensity: Double {
        characters == 0 ? 0 : Double(linkCharacters) / Double(characters)
    }

    mutating func add(_ other: TextStats) {
        characters += other.characters
        linkCharacters += other.linkCharacters
        listCharacters += other.listCharacters
        headingCharacters += other.headingCharacters
        commas += other.commas
        paragraphs += other.paragraphs
        media += other.media
        listItems += other.listItems
        codeBlocks += other.codeBlocks
        tableHeaders += other.tableHeaders
    }

    mutating func subtract(_ other: TextStats) {
        characters -= other.characters
        linkCharacters -= other.linkCharacters
        listCharacters -= other.listCharacters
        headingCharacters -= other.headingCharacters
        commas -= other.commas
        paragraphs -= other.paragraphs
        media -= other.media
        listItems -= other.listItems
        codeBlocks -= other.codeBlocks
        tableHeaders -= other.tableHeaders
    }

    /// Counts a text node's UTF-8 bytes: scalars, whitespace runs as one, no leading or trailing space;
    /// commas in Latin, Arabic and full-width forms.
    mutating func addText(_ text: UnsafePointer<xmlChar>) {
        var pointer = text
        var pendingSpace = false
        var counted = 0
        while pointer.pointee != 0 {
            let byte = pointer.pointee
            if FastText.isASCIIWhitespace(byte) || (byte == 0xC2 && pointer[1] == 0xA0) {
                pendingSpace = true
                pointer += byte == 0xC2 ? 2 : 1
                continue
            }
            if byte & 0xC0 != 0x80 {  // not a continuation byte: a scalar starts
                counted += pendingSpace && counted > 0 ? 2 : 1
                pendingSpace = false
            }
            if byte == UInt8(ascii: ",") || (byte == 0xD8 && pointer[1] == 0x8C)
                || (byte == 0xEF && pointer[1] == 0xBC && pointer[2] == 0x8C) {
                commas += 1
            }
            pointer += 1
        }
        characters += counted
    }
}
