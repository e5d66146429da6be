import Foundation

/// A fresh directory under the system's temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    /// Where it is.
    public let url: URL

    /// Creates a new, empty directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("AuthCoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Its path, not percent-encoded.
    public var path: String { url.path(percentEncoded: false) }

    /// Removes it and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Runs `body` with a fresh directory, removed when `body` returns or throws.
    public static func with<T>(_ body: (URL) throws -> T) throws -> T {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        return try body(directory.url)
    }
}
