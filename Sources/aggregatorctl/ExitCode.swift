/// The exit statuses the README lists, which scripts rely on.
enum ExitCode: Int32 {
    case success = 0
    case failure = 1
    case usage = 2
    case unreachable = 3
}
