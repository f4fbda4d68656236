#if canImport(Glibc)
import Glibc
#endif

/// Regular expressions written by users (filter rules, docs/ARCHITECTURE.md), matched with a step budget: a
/// pattern that backtracks catastrophically (`(a+)+$` on a long run of `a`s) gives up after
/// `budget` steps instead of holding the daemon. The syntax is the common core of RE2 and PCRE:
/// literals, `.`, classes (`[a-z]`, `[^…]`, `\d \w \s` and their negations), anchors `^ $ \b`,
/// groups `( )` and `(?: )`, alternation `|`, quantifiers `* + ? {m} {m,} {m,n}` (and their lazy
/// forms), and a leading `(?i)` for case-insensitive matching. Anything else (back-references,
/// look-around) is refused when the rule is set, with a message.
public struct BoundedRegex: Sendable {
    /// What `matches` found.
    public enum Outcome: Sendable, Equatable {
        case match, noMatch
        /// The budget ran out first: the caller decides (a rule then hides nothing).
        case gaveUp
    }

    enum Instruction: Sendable {
        case scalar(Unicode.Scalar)
        case any
        case set(ScalarSet)
        case split(Int, Int)  // try the first, then the second
        case jump(Int)
        case lineStart, lineEnd, wordBoundary
        case match
    }

    let program: [Instruction]
    let ignoresCase: Bool
    /// The scalars a match can start with, when the program says (nil: any): other start positions
    /// are skipped without running it (a rule's word in a 2 KB content is tried where its first
    /// letter is, not at every one of 2,000 positions).
    let firstScalars: ScalarSet?
    /// The pattern starts with `^`: only the first position can match.
    let anchoredAtStart: Bool
    /// Some alternative starts with `^`: the first position is always tried.
    let someStartAnchored: Bool
    /// ASCII bytes every match contains in a row (lowercase when the pattern ignores case), when the
    /// pattern has some: a text without them is no match, found by a byte search instead of running
    /// the program from every start (a rule's phrase in an entry's few KB of content: ~60 µs → ~2 µs).
    let requiredBytes: [UInt8]?

    /// Steps one match may take by default: ~1 ms of work.
    public static let defaultBudget = 200_000
    static let maximumPatternLength = 2_000
    static let maximumProgramLength = 20_000

    public init(_ pattern: String) throws(RegexSyntaxError) {
        guard pattern.unicodeScalars.count <= Self.maximumPatternLength else {
            throw RegexSyntaxError("the pattern is longer than \(Self.maximumPatternLength) characters")
        }
        var scalars = Array(pattern.unicodeScalars)
        var ignoresCase = false
        if scalars.starts(with: Array("(?i)".unicodeScalars)) {
            ignoresCase = true
            scalars.removeFirst(4)
        }
        var parser = RegexParser(scalars: scalars, ignoresCase: ignoresCase)
        let node = try parser.parse()
        var compiler = RegexCompiler()
        try compiler.emit(node)
        compiler.program.append(.match)
        self.program = compiler.program
        self.ignoresCase = ignoresCase
        (firstScalars, anchoredAtStart, someStartAnchored) = Self.starts(of: compiler.program)
        requiredBytes = Self.longestRequiredRun(node, ignoresCase: ignoresCase)
    }

    /// The longest run of ASCII literals (three at least) in the pattern's top-level sequence, groups
    /// without alternatives flattened into it. With `(?i)` a `k` ends a run: the Kelvin sign (U+212A)
    /// lowercases to it, and a byte search would miss that.
    private static func longestRequiredRun(_ node: RegexNode, ignoresCase: Bool) -> [UInt8]? {
        func flattened(_ node: RegexNode) -> [RegexNode] {
            if case .sequence(let items) = node { return items.flatMap(flattened) }
            return [node]
        }
        var longest: [UInt8] = [], run: [UInt8] = []
        for item in flattened(node) {
            if case .scalar(let scalar) = item, scalar.isASCII, !(ignoresCase && scalar == "k") {
                run.append(UInt8(scalar.value))
                if run.count > longest.count { longest = run }
            } else {
                run.removeAll()
            }
        }
        return longest.count >= 3 ? longest : nil
    }

    /// What every path from the program's start not anchored by `^` must read first: a set of
    /// scalars, or nil when some path can match without reading one or reads any; whether every path
    /// begins with `^`; and whether some does.
    private static func starts(of program: [Instruction]) -> (ScalarSet?, Bool, Bool) {
        var set = ScalarSet()
        var anchored = true
        var someAnchored = false
        var seen = Set<Int>()
        var pending = [0]
        while let pc = pending.popLast() {
            guard seen.insert(pc).inserted else { continue }
            switch program[pc] {
            case .scalar(let scalar):
                set.ranges.append(scalar.value...scalar.value)
                anchored = false
            case .set(let class_) where !class_.negated:
                set.ranges += class_.ranges
                anchored = false
            case .split(let first, let second): pending += [first, second]
            case .jump(let target): pending.append(target)
            case .wordBoundary: pending.append(pc + 1)
            case .lineStart: someAnchored = true
            case .any, .set, .lineEnd, .match: return (nil, false, someAnchored)
            }
        }
        return (anchored ? nil : set, anchored, someAnchored)
    }

    /// A text made ready for matching once, for every pattern asked of it: its scalars.
    public final class Subject {
        let text: String
        lazy var scalars: [Unicode.Scalar] = Array(text.unicodeScalars)
        private lazy var bytes: [UInt8] = Array(text.utf8)
        /// Its UTF-8 with ASCII letters lowercased (no other byte of UTF-8 is an ASCII letter).
        private lazy var foldedBytes: [UInt8] = bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }

        public init(_ text: String) {
            self.text = text
        }

        /// Whether its UTF-8 (ASCII-lowercased when `folded`) holds `needle`.
        func contains(_ needle: [UInt8], folded: Bool) -> Bool {
            let haystack = folded ? foldedBytes : bytes
            guard let first = needle.first, needle.count <= haystack.count else { return needle.isEmpty }
            return haystack.withUnsafeBufferPointer { text in
                needle.withUnsafeBufferPointer { wanted in
                    guard let start = text.baseAddress, let wantedStart = wanted.baseAddress else { return false }
                    let last = text.count - wanted.count
                    var index = 0
                    // memchr to each place the first byte is, then memcmp there (glibc's memmem is a GNU extension).
                    while index <= last, let found = memchr(start + index, Int32(first), last - index + 1) {
                        let at = start.distance(to: found.assumingMemoryBound(to: UInt8.self))
                        if memcmp(start + at, wantedStart, wanted.count) == 0 { return true }
                        index = at + 1
                    }
                    return false
                }
            }
        }
    }

    /// Whether the pattern matches anywhere in `text`, within `budget` steps in all.
    public func matches(_ text: String, budget: Int = defaultBudget) -> Outcome {
        matches(Subject(text), budget: budget)
    }

    /// Whether the pattern matches anywhere in `subject`, within `budget` steps in all.
    public func matches(_ subject: Subject, budget: Int = defaultBudget) -> Outcome {
        var remaining = budget
        return matches(subject, remaining: &remaining)
    }

    /// Whether the pattern matches anywhere in `subject`, taking the steps it uses from `remaining`:
    /// several patterns judging one entry share one budget (docs/SECURITY.md, "Filter rules"). A case-insensitive
    /// pattern (its literals lowercased) reads the text lowercased as it goes.
    public func matches(_ subject: Subject, remaining: inout Int) -> Outcome {
        let budget = remaining
        var steps = 0
        defer { remaining = max(0, budget - steps) }
        if let requiredBytes, !subject.contains(requiredBytes, folded: ignoresCase) { return .noMatch }
        let input = subject.scalars
        let folds = ignoresCase
        @inline(__always) func at(_ index: Int) -> Unicode.Scalar { folds ? Self.folded(input[index]) : input[index] }
        let first = firstScalars
        let filtersStarts = first != nil
        let firstSet = first ?? ScalarSet()
        var stack: [(pc: Int, position: Int)] = []
        for start in 0...input.count {
            if anchoredAtStart, start > 0 { break }
            if filtersStarts, !(start == 0 && someStartAnchored),
               start == input.count || !firstSet.containsFast(at(start)) { continue }
            stack.removeAll(keepingCapacity: true)
            stack.append((0, start))
            while let (firstPC, firstPosition) = stack.popLast() {
                var pc = firstPC, position = firstPosition
                running: while true {
                    steps += 1
                    if steps > budget { return .gaveUp }
                    switch program[pc] {
                    case .scalar(let wanted):
                        guard position < input.count, at(position) == wanted else { break running }
                        pc += 1
                        position += 1
                    case .any:
                        guard position < input.count, input[position] != "\n" else { break running }
                        pc += 1
                        position += 1
                    case .set(let set):
                        // A class is tested range by range: it costs its size (2,000 ranges are not one step).
                        steps += set.ranges.count
                        if steps > budget { return .gaveUp }
                        guard position < input.count, set.contains(at(position)) else { break running }
                        pc += 1
                        position += 1
                    case .split(let first, let second):
                        stack.append((second, position))
                        pc = first
                    case .jump(let target):
                        pc = target
                    case .lineStart:
                        guard position == 0 else { break running }
                        pc += 1
                    case .lineEnd:
                        guard position == input.count else { break running }
                        pc += 1
                    case .wordBoundary:
                        let before = position > 0 && ScalarSet.isWord(input[position - 1])
                        let after = position < input.count && ScalarSet.isWord(input[position])
                        guard before != after else { break running }
                        pc += 1
                    case .match:
                        return .match
                    }
                }
            }
        }
        return .noMatch
    }

    /// The scalar lowercased (ASCII by arithmetic; others by their Unicode lowercase mapping when it
    /// is one scalar), as the pattern's literals were.
    @inline(__always) static func folded(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let value = scalar.value
        if value < 128 { return value >= 65 && value <= 90 ? Unicode.Scalar(UInt8(value + 32)) : scalar }
        let mapped = scalar.properties.lowercaseMapping.unicodeScalars
        return mapped.count == 1 ? mapped.first! : scalar
    }
}

/// Why a pattern is refused.
public struct RegexSyntaxError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A bracket class or an escape class: ranges, possibly negated.
struct ScalarSet: Sendable {
    var ranges: [ClosedRange<UInt32>] = [] {
        didSet { ascii = Self.bitmap(of: ranges) }
    }
    var negated = false
    /// The ASCII members as a bitmap: the start positions of a match are tested against it.
    private var ascii: (UInt64, UInt64) = (0, 0)

    init(ranges: [ClosedRange<UInt32>] = [], negated: Bool = false) {
        self.ranges = ranges
        self.negated = negated
        ascii = Self.bitmap(of: ranges)
    }

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        ranges.contains { $0.contains(scalar.value) } != negated
    }

    /// `contains`, by the bitmap for ASCII (for sets that are not negated).
    @inline(__always) func containsFast(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 64 { return ascii.0 & (1 << UInt64(value)) != 0 }
        if value < 128 { return ascii.1 & (1 << UInt64(value - 64)) != 0 }
        return contains(scalar)
    }

    private static func bitmap(of ranges: [ClosedRange<UInt32>]) -> (UInt64, UInt64) {
        var bits: (UInt64, UInt64) = (0, 0)
        for range in ranges where range.lowerBound < 128 {
            for value in range.lowerBound...min(range.upperBound, 127) {
                if value < 64 { bits.0 |= 1 << UInt64(value) } else { bits.1 |= 1 << UInt64(value - 64) }
            }
        }
        return bits
    }

    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar == "_"
    }

    static let digits = ScalarSet(ranges: [48...57])
    static let word = ScalarSet(ranges: [48...57, 65...90, 95...95, 97...122])
    static let space = ScalarSet(ranges: [9...13, 32...32, 0xA0...0xA0, 0x2000...0x200A, 0x3000...0x3000])

    func negatedCopy() -> ScalarSet { ScalarSet(ranges: ranges, negated: !negated) }
}

indirect enum RegexNode {
    case scalar(Unicode.Scalar)
    case any
    case set(ScalarSet)
    case lineStart, lineEnd, wordBoundary
    case sequence([RegexNode])
    case alternatives([RegexNode])
    case repeated(RegexNode, min: Int, max: Int?, greedy: Bool)
}

/// Recursive descent over the pattern's scalars.
struct RegexParser {
    let scalars: [Unicode.Scalar]
    let ignoresCase: Bool
    var position = 0
    var depth = 0

    init(scalars: [Unicode.Scalar], ignoresCase: Bool) {
        self.scalars = scalars
        self.ignoresCase = ignoresCase
    }

    mutating func parse() throws(RegexSyntaxError) -> RegexNode {
        let node = try alternatives()
        guard position == scalars.count else { throw RegexSyntaxError("unbalanced ')' at \(position + 1)") }
        return node
    }

    private var next: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private mutating func alternatives() throws(RegexSyntaxError) -> RegexNode {
        var choices = [try sequence()]
        while next == "|" {
            position += 1
            choices.append(try sequence())
        }
        return choices.count == 1 ? choices[0] : .alternatives(choices)
    }

    private mutating func sequence() throws(RegexSyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let scalar = next, scalar != "|", scalar != ")" {
            let atom = try self.atom()
            items.append(try quantified(atom))
        }
        return .sequence(items)
    }

    private mutating func quantified(_ atom: RegexNode) throws(RegexSyntaxError) -> RegexNode {
        guard let scalar = next else { return atom }
        var bounds: (Int, Int?)
        switch scalar {
        case "*": bounds = (0, nil); position += 1
        case "+": bounds = (1, nil); position += 1
        case "?": bounds = (0, 1); position += 1
        case "{":
            guard let counted = try counts() else { return atom }
            bounds = counted
        default: return atom
        }
        var greedy = true
        if next == "?" {
            greedy = false
            position += 1
        }
        if let following = next, "*+?".unicodeScalars.contains(following) {
            throw RegexSyntaxError("a quantifier follows another at \(position + 1) (possessive quantifiers are not supported)")
        }
        return .repeated(atom, min: bounds.0, max: bounds.1, greedy: greedy)
    }

    /// `{m}`, `{m,}`, `{m,n}` (at most 1,000); nil when the brace is a literal one.
    private mutating func counts() throws(RegexSyntaxError) -> (Int, Int?)? {
        var index = position + 1
        func number() -> Int? {
            var value: Int?
            while index < scalars.count, let digit = Int(String(scalars[index])), value ?? 0 < 10_000 {
                value = (value ?? 0) * 10 + digit
                index += 1
            }
            return value
        }
        guard let low = number() else { return nil }
        var high: Int? = low
        if index < scalars.count, scalars[index] == "," {
            index += 1
            high = number()
        }
        guard index < scalars.count, scalars[index] == "}" else { return nil }
        guard low <= 1000, (high ?? low) <= 1000, low <= (high ?? low) else {
            throw RegexSyntaxError("a repetition count above 1000 or out of order at \(position + 1)")
        }
        position = index + 1
        return (low, high)
    }

    private mutating func atom() throws(RegexSyntaxError) -> RegexNode {
        let scalar = scalars[position]
        position += 1
        switch scalar {
        case "(":
            depth += 1
            guard depth <= 100 else { throw RegexSyntaxError("groups nested more than 100 deep") }
            if next == "?" {
                guard position + 1 < scalars.count, scalars[position + 1] == ":" else {
                    throw RegexSyntaxError("\"(?\" at \(position): only (?:…) groups and a leading (?i) are supported")
                }
                position += 2
            }
            let inner = try alternatives()
            guard next == ")" else { throw RegexSyntaxError("a '(' is not closed") }
            position += 1
            depth -= 1
            return inner
        case "[": return .set(try bracket())
        case ".": return .any
        case "^": return .lineStart
        case "$": return .lineEnd
        case "\\": return try escape()
        case "*", "+", "?": throw RegexSyntaxError("'\(scalar)' at \(position) repeats nothing")
        default: return literal(scalar)
        }
    }

    private func literal(_ scalar: Unicode.Scalar) -> RegexNode {
        guard ignoresCase else { return .scalar(scalar) }
        return .scalar(String(scalar).lowercased().unicodeScalars.first ?? scalar)
    }

    private mutating func escape() throws(RegexSyntaxError) -> RegexNode {
        guard let scalar = next else { throw RegexSyntaxError("the pattern ends with '\\'") }
        position += 1
        switch scalar {
        case "b": return .wordBoundary
        case "d", "D", "w", "W", "s", "S": return .set(Self.escapeClass(scalar))
        case "n": return .scalar("\n")
        case "t": return .scalar("\t")
        case "r": return .scalar("\r")
        default:
            guard !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar) else {
                throw RegexSyntaxError("'\\\(scalar)' is not supported (back-references and the like)")
            }
            return literal(scalar)
        }
    }

    private static func escapeClass(_ scalar: Unicode.Scalar) -> ScalarSet {
        switch scalar {
        case "d": .digits
        case "D": ScalarSet.digits.negatedCopy()
        case "w": .word
        case "W": ScalarSet.word.negatedCopy()
        case "s": .space
        default: ScalarSet.space.negatedCopy()
        }
    }

    private mutating func bracket() throws(RegexSyntaxError) -> ScalarSet {
        var set = ScalarSet()
        if next == "^" {
            set.negated = true
            position += 1
        }
        var first = true
        while let scalar = next, scalar != "]" || first {
            first = false
            position += 1
            var low = scalar
            if scalar == "\\" {
                guard let escaped = next else { break }
                position += 1
                if "dDwWsS".unicodeScalars.contains(escaped) {
                    let inner = Self.escapeClass(escaped)
                    guard !inner.negated else { throw RegexSyntaxError("a negated class inside [ ] is not supported") }
                    set.ranges += inner.ranges
                    continue
                }
                low = escaped == "n" ? "\n" : escaped == "t" ? "\t" : escaped
            }
            var high = low
            if next == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                position += 1
                high = scalars[position]
                position += 1
                guard low.value <= high.value else { throw RegexSyntaxError("the range \(low)-\(high) is out of order") }
            }
            set.ranges.append(low.value...high.value)
            // The input is lowercased: a range of capitals (A-Z) matches its lowercase letters.
            if ignoresCase, low.properties.isAlphabetic, high.properties.isAlphabetic,
               let lowerLow = String(low).lowercased().unicodeScalars.first,
               let lowerHigh = String(high).lowercased().unicodeScalars.first, lowerLow.value <= lowerHigh.value {
                set.ranges.append(lowerLow.value...lowerHigh.value)
            }
        }
        guard next == "]" else { throw RegexSyntaxError("a '[' is not closed") }
        position += 1
        return set
    }
}

/// Turns the tree into instructions; counted repetitions are copied out, within a size limit.
struct RegexCompiler {
    var program: [BoundedRegex.Instruction] = []

    mutating func emit(_ node: RegexNode) throws(RegexSyntaxError) {
        guard program.count <= BoundedRegex.maximumProgramLength else {
            throw RegexSyntaxError("the pattern expands to too much (counted repetitions of large groups)")
        }
        switch node {
        case .scalar(let scalar): program.append(.scalar(scalar))
        case .any: program.append(.any)
        case .set(let set): program.append(.set(set))
        case .lineStart: program.append(.lineStart)
        case .lineEnd: program.append(.lineEnd)
        case .wordBoundary: program.append(.wordBoundary)
        case .sequence(let items):
            for item in items { try emit(item) }
        case .alternatives(let choices):
            var jumps: [Int] = []
            for (index, choice) in choices.enumerated() {
                if index < choices.count - 1 {
                    let split = program.count
                    program.append(.split(split + 1, -1))
                    try emit(choice)
                    jumps.append(program.count)
                    program.append(.jump(-1))
                    program[split] = .split(split + 1, program.count)
                } else {
                    try emit(choice)
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repeated(let inner, let min, let max, let greedy):
            for _ in 0..<min { try emit(inner) }
            if let max {
                // Each optional copy: split into it or past the rest.
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(program.count)
                    program.append(.split(-1, -1))
                    try emit(inner)
                }
                for split in splits { program[split] = optional(from: split, to: program.count, greedy: greedy) }
            } else {
                let loop = program.count
                program.append(.split(-1, -1))
                try emit(inner)
                program.append(.jump(loop))
                program[loop] = optional(from: loop, to: program.count, greedy: greedy)
            }
        }
    }

    private func optional(from split: Int, to end: Int, greedy: Bool) -> BoundedRegex.Instruction {
        greedy ? .split(split + 1, end) : .split(end, split + 1)
    }
}
