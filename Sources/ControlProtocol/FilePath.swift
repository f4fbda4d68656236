/// Path text, without Foundation's NSString path methods: on Swift 6.3's Foundation,
/// `deletingLastPathComponent` traps on a name without a slash (`a.db`), which users pass.
public enum FilePath {
    /// The directory part of `path`: "" for a bare name, "/" for a file at the root.
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
