import Foundation

/// Writes each redacted entry as one line to a sink (standard error, a file, an OSLog bridge…).
public struct LineLogger: HTTPLogger {
    private let write: @Sendable (String) -> Void

    /// A logger handing each line to `write`.
    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// A logger writing to standard error.
    public static var standardError: LineLogger {
        LineLogger { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// Writes `entry`'s line.
    public func record(_ entry: HTTPLogEntry) {
        write(entry.description)
    }
}
