/// Trimming as Foundation's `trimmingCharacters(in:)` did, without linking the Foundation that
/// carries ICU (the client uses FeedParser for `parse`).
extension StringProtocol {
    /// Without leading and trailing white space and newlines as Foundation's `.whitespacesAndNewlines`
    /// counts them: space separators, tab, line feed to carriage return, U+0085, line and paragraph separators.
    var trimmingWhitespaceAndNewlines: String {
        trimming { scalar in
            switch scalar.value {
            case 0x09...0x0D, 0x85: true
            default:
                switch scalar.properties.generalCategory {
                case .spaceSeparator, .lineSeparator, .paragraphSeparator: true
                default: false
                }
            }
        }
    }

    /// Without the leading and trailing scalars `isTrimmed` picks.
    func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[first...last])
        return String(result)
    }
}
