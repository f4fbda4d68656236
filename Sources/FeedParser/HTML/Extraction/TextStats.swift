import CLibXML2

/// Counts over some text of the page: how much there is, how much of it is inside links, lists and
/// headings, and the elements that the cleaning rules weigh. 32-bit counts (a page is at most 5 MB): every
/// element carries these, and a page of 35,000 elements first-touches each byte of them.
struct TextStats {
    /// Characters, each whitespace run counted as one.
    var characters: Int32 = 0
    var linkCharacters: Int32 = 0
    var listCharacters: Int32 = 0
    var headingCharacters: Int32 = 0
    var commas: Int32 = 0
    var paragraphs: Int32 = 0
    /// Images, videos and audio.
    var media: Int32 = 0
    var listItems: Int32 = 0
    var codeBlocks: Int32 = 0
    /// `th`, `thead` and `caption`: what tells a data table from a layout one.
    var tableHeaders: Int32 = 0

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
        var counted: Int32 = 0
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

/// What scoring reads of an element's own paragraph text (smaller than a `TextStats`, for the same reason).
struct PhrasingStats {
    var characters: Int32 = 0
    var commas: Int32 = 0

    mutating func add(_ stats: TextStats) {
        characters += stats.characters
        commas += stats.commas
    }

    mutating func subtract(_ stats: TextStats) {
        characters -= stats.characters
        commas -= stats.commas
    }
}
