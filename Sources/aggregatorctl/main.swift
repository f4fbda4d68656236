import Foundation

let cli = CLI(
    standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
    standardError: { FileHandle.standardError.write(Data($0.utf8)) }
)
exit(cli.run(Array(CommandLine.arguments.dropFirst())).rawValue)
