import Foundation

/// A file of the diagram folder that is not what the code generates.
public struct StaleFile: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// How it differs.
    public enum Reason: String, Hashable, Sendable {
        /// The code generates it; the folder lacks it.
        case missing
        /// The folder's contents differ from what the code generates.
        case differs
        /// The folder has a diagram file the code no longer generates.
        case unexpected
    }

    /// The path inside the folder.
    public var path: String
    /// How it differs.
    public var reason: Reason

    /// Creates a stale file.
    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// Orders by path.
    public static func < (lhs: StaleFile, rhs: StaleFile) -> Bool { (lhs.path, lhs.reason.rawValue) < (rhs.path, rhs.reason.rawValue) }

    /// `codeRegistration.mmd (differs)`.
    public var description: String { "\(path) (\(reason.rawValue))" }
}

/// The comparison `--check` makes, without touching the disk: what differs between the files the
/// code generates and the folder's `existing` files (path → contents).
///
/// Only generated kinds of file take part: `README.md` and the files of the `formats` checked.
/// `.svg` files are never compared (Graphviz writes its version into them), nor is anything else
/// the folder holds.
public func staleFiles(expected: [GeneratedFile], existing: [String: String], formats: Set<DiagramFormat>) -> [StaleFile] {
    var stale: [StaleFile] = []
    let expectedPaths = Set(expected.map(\.path))
    for file in expected {
        guard let contents = existing[file.path] else {
            stale.append(StaleFile(path: file.path, reason: .missing))
            continue
        }
        if contents != file.contents { stale.append(StaleFile(path: file.path, reason: .differs)) }
    }
    let checkedExtensions = Set(formats.map { "." + $0.fileExtension })
    for path in existing.keys where !expectedPaths.contains(path) {
        if checkedExtensions.contains(where: { path.hasSuffix($0) }) { stale.append(StaleFile(path: path, reason: .unexpected)) }
    }
    return stale.sorted()
}

/// The diagram folder on disk (`StateDiagrams/`).
public struct DiagramFolder: Sendable {
    /// The folder's path.
    public var path: String

    /// The folder at `path`.
    public init(path: String) { self.path = path }

    private var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// Every regular file directly inside the folder (path → contents); empty when the folder is absent.
    public func read() throws -> [String: String] {
        let manager = FileManager.default
        guard manager.fileExists(atPath: path) else { return [:] }
        var files: [String: String] = [:]
        for name in try manager.contentsOfDirectory(atPath: path).sorted() {
            let file = url.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            guard name.hasSuffix(".svg") == false else {
                files[name] = ""  // Listed, never compared.
                continue
            }
            let data = try Data(contentsOf: file)
            files[name] = String(decoding: data, as: UTF8.self)
        }
        return files
    }

    /// What differs from `expected` (see ``staleFiles(expected:existing:formats:)``).
    public func check(_ expected: [GeneratedFile], formats: Set<DiagramFormat>) throws -> [StaleFile] {
        staleFiles(expected: expected, existing: try read(), formats: formats)
    }

    /// Writes the files that differ and removes the diagram files the code no longer generates
    /// (with their `.svg`). Returns what changed.
    @discardableResult
    public func write(_ expected: [GeneratedFile], formats: Set<DiagramFormat>) throws -> [StaleFile] {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let stale = try check(expected, formats: formats)
        let byPath = Dictionary(expected.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for file in stale {
            let target = url.appendingPathComponent(file.path)
            switch file.reason {
            case .missing, .differs:
                try Data((byPath[file.path]?.contents ?? "").utf8).write(to: target, options: .atomic)
            case .unexpected:
                try FileManager.default.removeItem(at: target)
                let svg = url.appendingPathComponent(String(file.path.prefix(upTo: file.path.lastIndex(of: ".") ?? file.path.endIndex)) + ".svg")
                let stillDrawn = expected.contains { $0.path.hasPrefix(svg.deletingPathExtension().lastPathComponent + ".") }
                if !stillDrawn, FileManager.default.fileExists(atPath: svg.path) { try FileManager.default.removeItem(at: svg) }
            }
        }
        return stale
    }
}
