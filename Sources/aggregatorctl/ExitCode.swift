/// The exit statuses docs/cli.md lists ("Commands"), which scripts rely on.
enum ExitCode: Int32 {
    case success = 0
    case failure = 1
    case usage = 2
    case unreachable = 3
}
