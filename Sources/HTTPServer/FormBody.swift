import Foundation

/// `application/x-www-form-urlencoded` text (a form post's body): name=value pairs joined by `&`,
/// `+` for a space, percent-escapes decoded; a pair that does not decode is kept as it came.
public enum FormBody {
    public static func pairs(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decoded(parts[0]), parts.count > 1 ? decoded(parts[1]) : "")
        }
    }

    private static func decoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
