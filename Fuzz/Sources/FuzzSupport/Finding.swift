import Foundation

/// A property that does not hold: the input is a finding. Crashes on purpose, so libFuzzer saves the
/// input as `crash-…` and `make fuzz` fails, with the message on stderr.
public func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    guard condition() else {
        fatalError("property violated: \(message())")
    }
}

/// The input as text: UTF-8, invalid sequences replaced (as the daemon decodes what it is sent).
public func text(_ data: UnsafePointer<UInt8>?, _ size: Int) -> String {
    guard let data else { return "" }
    return String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
}

/// The input as bytes.
public func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Data {
    guard let data else { return Data() }
    return Data(bytes: data, count: size)
}

/// One input of a fuzz target: libFuzzer's bytes; 0 to keep it in the corpus, -1 to reject it.
public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(_ argc: UnsafeMutablePointer<CInt>,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                       _ target: FuzzTarget) -> CInt

/// Hands the process to libFuzzer with `target` (SwiftPM gives executables a main of their own, so
/// libFuzzer's is not used: its driver is called from ours, with the command line).
public func runFuzzer(_ target: FuzzTarget) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(runDriver(&argc, &argv, target))
}
