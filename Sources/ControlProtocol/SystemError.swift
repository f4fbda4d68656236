import Glibc

/// A POSIX call failed: which call, and errno's message.
public struct SystemError: Error, Equatable, CustomStringConvertible {
    public let call: String
    public let code: Int32

    public init(call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    public var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// Runs a system call, retrying on EINTR; throws `SystemError` when it returns -1.
@discardableResult
func systemCall(_ name: String, _ call: () -> Int32) throws(SystemError) -> Int32 {
    while true {
        let result = call()
        if result != -1 { return result }
        if errno == EINTR { continue }
        throw SystemError(call: name)
    }
}
