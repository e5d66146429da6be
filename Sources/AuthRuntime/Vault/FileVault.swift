import AuthCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A vault in one file, for Linux and command-line use, and a second beside it (`<fileName>.owed`)
/// while a logout owes the server a revocation (`OwedRevocation`).
///
/// The directory is created `0700` and the file written `0600`. A save writes a temporary file in
/// the same directory, flushes it to disk (`fsync`), renames it over the old file and flushes the
/// directory, so a crash at any point leaves either the old credentials or the new ones, never a
/// mixture. A file that exists but cannot be read (corrupt, permission denied) is an error, and
/// nothing is deleted because of it.
///
/// Give the vault a directory of its own: leftover temporary files of interrupted saves in it are
/// removed by the next save or clear.
public struct FileVault: TokenVault, CustomStringConvertible {
    /// The directory holding the file.
    public let directory: URL
    /// The file's name inside `directory`.
    public let fileName: String
    /// Stops a save after its temporary file is written and before the rename, as a crash there
    /// would (tests only).
    let interruptBeforeRename: Bool

    /// A vault writing `fileName` inside `directory`.
    public init(directory: URL, fileName: String = "credentials.json") {
        self.init(directory: directory, fileName: fileName, interruptBeforeRename: false)
    }

    init(directory: URL, fileName: String, interruptBeforeRename: Bool) {
        self.directory = directory
        self.fileName = fileName
        self.interruptBeforeRename = interruptBeforeRename
    }

    /// The largest file the vault reads; anything bigger is not a record it wrote.
    private static let maximumSize = 64 * 1024

    private var directoryPath: String { directory.standardizedFileURL.path(percentEncoded: false) }
    /// The file of owed revocations, beside the credentials' (`OwedRevocation`).
    private var owedFileName: String { fileName + ".owed" }

    // MARK: TokenVault

    /// The stored credentials, `nil` when there is no file.
    public func load() throws(VaultError) -> Credentials? {
        try contents(of: fileName).map { data throws(VaultError) in try CredentialsRecord.decode(data) }
    }

    /// Replaces the file atomically with `credentials`; on failure the old file stays as it was.
    public func save(_ credentials: Credentials) throws(VaultError) {
        try replace(fileName, with: CredentialsRecord.encode(credentials))
    }

    /// Deletes the file; succeeds when there is none.
    public func clear() throws(VaultError) {
        try remove(fileName)
    }

    /// The owed revocations, from a second file beside the credentials' (`<fileName>.owed`);
    /// none when there is no such file.
    public func loadOwedRevocations() throws(VaultError) -> [OwedRevocation] {
        try contents(of: owedFileName).map { data throws(VaultError) in try OwedRevocationsRecord.decode(data) } ?? []
    }

    /// Replaces the owed revocations atomically, as a save does; none deletes their file.
    public func saveOwedRevocations(_ owed: [OwedRevocation]) throws(VaultError) {
        if owed.isEmpty {
            try remove(owedFileName)
        } else {
            try replace(owedFileName, with: OwedRevocationsRecord.encode(owed))
        }
    }

    /// `FileVault(credentials.json)`: the file name only.
    public var description: String { "FileVault(\(fileName))" }

    // MARK: Files

    /// The bytes of `name` in the directory, `nil` when there is no such file.
    private func contents(of name: String) throws(VaultError) -> Data? {
        let descriptor = open(directoryPath + "/" + name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw Self.failure("open", code)
        }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw Self.failure("read", code)
            }
            data.append(contentsOf: buffer[0..<count])
            guard data.count <= Self.maximumSize else { throw .corrupt }
        }
        return data
    }

    /// Replaces `name` atomically with `data`; on failure the old file stays as it was.
    private func replace(_ name: String, with data: Data) throws(VaultError) {
        try ensureDirectory()
        let temporaryPath = directoryPath + "/" + Self.temporaryPrefix(name) + String(UInt64.random(in: .min ... .max), radix: 16)
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Self.failure("open", errno) }
        do throws(VaultError) {
            // The mode given to open is filtered by the umask; make it exactly 0600.
            guard fchmod(descriptor, 0o600) == 0 else { throw Self.failure("fchmod", errno) }
            try Self.writeAll(data, to: descriptor)
            guard fsync(descriptor) == 0 else { throw Self.failure("fsync", errno) }
        } catch {
            close(descriptor)
            unlink(temporaryPath)
            throw error
        }
        guard close(descriptor) == 0 else {
            let code = errno
            unlink(temporaryPath)
            throw Self.failure("close", code)
        }
        if interruptBeforeRename { throw .system(operation: "rename", code: EINTR) }
        guard rename(temporaryPath, directoryPath + "/" + name) == 0 else {
            let code = errno
            unlink(temporaryPath)
            throw Self.failure("rename", code)
        }
        syncDirectory()
        removeLeftovers()
    }

    /// Deletes `name`; succeeds when there is none.
    private func remove(_ name: String) throws(VaultError) {
        if unlink(directoryPath + "/" + name) != 0 {
            let code = errno
            guard code == ENOENT else { throw Self.failure("unlink", code) }
        }
        syncDirectory()
        removeLeftovers()
    }

    /// The prefix of `name`'s temporary files.
    private static func temporaryPrefix(_ name: String) -> String { "." + name + ".tmp-" }

    /// Creates the directory `0700` when it is missing (its parents with the default mode); an
    /// existing directory is used as it is.
    private func ensureDirectory() throws(VaultError) {
        var status = stat()
        if stat(directoryPath, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFDIR else { throw .system(operation: "mkdir", code: ENOTDIR) }
            return
        }
        let parent = directory.standardizedFileURL.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw .system(operation: "mkdir", code: EACCES)
        }
        if mkdir(directoryPath, 0o700) != 0 {
            let code = errno
            guard code == EEXIST else { throw Self.failure("mkdir", code) }
            return
        }
        // The mode given to mkdir is filtered by the umask; make it exactly 0700.
        guard chmod(directoryPath, 0o700) == 0 else { throw Self.failure("chmod", errno) }
    }

    private static func writeAll(_ data: Data, to descriptor: Int32) throws(VaultError) {
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes { bytes in
                write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            }
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                throw failure("write", code)
            }
            offset += written
        }
    }

    /// Flushes the directory entry of a rename or unlink to disk (best effort: some file systems
    /// refuse to sync a directory, and the rename itself already happened).
    private func syncDirectory() {
        let descriptor = open(directoryPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// Removes temporary files that interrupted saves left behind: they hold tokens.
    private func removeLeftovers() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directoryPath) else { return }
        let prefixes = [Self.temporaryPrefix(fileName), Self.temporaryPrefix(owedFileName)]
        for name in names where prefixes.contains(where: { name.hasPrefix($0) }) {
            unlink(directoryPath + "/" + name)
        }
    }

    private static func failure(_ operation: String, _ code: Int32) -> VaultError {
        switch code {
        case EACCES, EPERM: .accessDenied
        default: .system(operation: operation, code: code)
        }
    }
}
