import AuthflowKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a line to standard error, unbuffered.
func writeError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
}

let status = Authflow.run(Array(CommandLine.arguments.dropFirst()), out: { print($0) }, err: writeError)
exit(status)
