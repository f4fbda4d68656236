/// Takes options and arguments off a command line, the way swift-argument-parser reads them:
/// `--name value`, `--name=value`, flags, and `--` ending the options.
struct ArgumentReader {
    private var arguments: [String]
    /// The options a command's table lists, once the command is known; others are never taken.
    private var allowed: Set<String>?
    /// Options the code asked for that the table does not list: a bug, which tests look for.
    private(set) var unlisted: [String] = []

    init(_ arguments: [String]) {
        self.arguments = arguments
    }

    /// From now on, takes only `names` (a command's options): any other is left for `positionals()`
    /// to report as unknown, and asking for it is recorded in `unlisted`.
    mutating func restrict(to names: Set<String>) {
        allowed = names
    }

    /// Whether `name` may be taken; records it when the table does not list it.
    private mutating func mayTake(_ name: String) -> Bool {
        guard let allowed, !allowed.contains(name) else { return true }
        unlisted.append(name)
        return false
    }

    /// Where `--` stands, or the end: options are only looked for before it.
    private var optionsEnd: Int { arguments.firstIndex(of: "--") ?? arguments.count }

    /// Removes every occurrence of the flag; true when it was given.
    mutating func flag(_ names: String...) -> Bool {
        let names = names.filter { mayTake($0) }
        var found = false
        let end = optionsEnd
        var kept: [String] = []
        kept.reserveCapacity(arguments.count)
        for (index, argument) in arguments.enumerated() {
            if index < end, names.contains(argument) {
                found = true
            } else {
                kept.append(argument)
            }
        }
        arguments = kept
        return found
    }

    /// Removes `--name value` or `--name=value` and returns the value (the last one when repeated).
    /// - Throws: `UsageError` when the option has no value.
    mutating func option(_ name: String) throws(UsageError) -> String? {
        guard mayTake(name) else { return nil }
        var value: String?
        let end = optionsEnd
        let prefix = name + "="
        var kept: [String] = []
        kept.reserveCapacity(arguments.count)
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if index < end, argument == name {
                guard index + 1 < end, !arguments[index + 1].hasPrefix("--") else {
                    throw UsageError("Missing value for '\(name)'")
                }
                value = arguments[index + 1]
                index += 2
                continue
            }
            if index < end, argument.hasPrefix(prefix) {
                value = String(argument.dropFirst(prefix.count))
            } else {
                kept.append(argument)
            }
            index += 1
        }
        arguments = kept
        return value
    }

    /// Removes and returns the first argument that is not an option, such as the command name.
    mutating func firstPositional() -> String? {
        guard let index = arguments.indices.first(where: { $0 >= optionsEnd || !isOption(arguments[$0]) }),
              arguments[index] != "--" else {
            return nil
        }
        return arguments.remove(at: index)
    }

    /// What is left, once every known option was taken: the positional arguments.
    /// - Throws: `UsageError` naming the first unknown option.
    func positionals() throws(UsageError) -> [String] {
        let end = optionsEnd
        if let unknown = arguments[..<end].first(where: isOption) {
            throw UsageError("Unknown option '\(unknown)'")
        }
        return Array(arguments[..<end]) + arguments.dropFirst(end + 1)
    }

    private func isOption(_ argument: String) -> Bool {
        argument.count > 1 && argument.hasPrefix("-")  // a lone "-" means standard input
    }
}

/// The command line was wrong: printed with the usage line, exit status 2.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
