import FoundationEssentials
import Glibc

/// The password of `user set` (asked for twice without echo on a terminal) or `user fever on` (once),
/// else the first line of standard input (for scripts: `printf '%s\n' "$PASSWORD" | aggregatorctl user set NAME`).
enum PasswordReader {
    /// A new password (asked twice on a terminal), the current one (asked once), or none.
    enum Kind {
        case none, new, current
    }

    static func read(_ kind: Kind) throws(UsageError) -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true) else {
                throw UsageError("No password on standard input (give it as the first line)")
            }
            return line.hasSuffix("\r") ? String(line.dropLast()) : line
        }
        guard kind == .new else { return try prompt("Password: ") }
        let first = try prompt("New password: ")
        let second = try prompt("Repeat it: ")
        guard first == second else { throw UsageError("The two passwords differ; nothing was changed") }
        return first
    }

    /// One line from the terminal with echo off (restored whatever happens).
    private static func prompt(_ text: String) throws(UsageError) -> String {
        StandardStreams.writeError(text)
        var saved = termios()
        let canHide = tcgetattr(STDIN_FILENO, &saved) == 0
        if canHide {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        let line = readLine(strippingNewline: true)
        if canHide { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
        StandardStreams.writeError("\n")
        guard let line else { throw UsageError("No password given") }
        return line
    }
}
