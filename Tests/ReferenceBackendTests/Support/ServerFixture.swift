#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ReferenceBackend

/// Runs `body` against a started server and stops it afterwards, even when `body` throws.
func withServer<T>(
    _ backends: [ServedBackend] = ServedBackend.allCases,
    configuration: Configuration = Configuration(),
    _ body: (ReferenceServer) async throws -> T
) async throws -> T {
    let server = ReferenceServer(backends: backends, configuration: configuration)
    try server.start()
    defer { server.stop() }
    return try await body(server)
}

extension Configuration {
    /// The defaults, with Subspace's rate limit out of reach.
    static var unlimited: Configuration {
        var configuration = Configuration()
        configuration.subspace.rateLimit = .max
        return configuration
    }

    /// The defaults, on a ``ManualClock`` nobody moves: an OpenID Connect code lives 60 s by the
    /// server's clock, and a test starved of threads in a busy run once took longer than that
    /// between taking a code and exchanging it.
    static var stillClock: Configuration {
        var configuration = Configuration()
        let clock = ManualClock()
        configuration.clock = { clock.now }
        return configuration
    }
}

/// A client for one backend of `server`.
func client(_ server: ReferenceServer, _ backend: ServedBackend, timeout: TimeInterval = 10) -> TestClient {
    TestClient(server.baseURL(for: backend), timeout: timeout)
}

/// A clock tests move by hand.
final class ManualClock: @unchecked Sendable {
    // Safe: `current` is only touched under `lock`.
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_767_225_600)

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    func advance(_ interval: TimeInterval) {
        lock.lock()
        current += interval
        lock.unlock()
    }
}

/// The payload of a JWT-shaped token.
func jwtClaims(_ token: String) -> [String: Any]? {
    let parts = token.split(separator: ".")
    guard parts.count == 3 else { return nil }
    var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    text += String(repeating: "=", count: (4 - text.count % 4) % 4)
    guard let data = Data(base64Encoded: text) else { return nil }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

#if os(Linux)
/// Every line of a /proc file, read with stdio: Foundation may stop at the first page of a file whose size reads as 0.
private func procLines(_ path: String) -> [String] {
    guard let file = fopen(path, "r") else { return [] }
    defer { fclose(file) }
    var lines: [String] = []
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    while getline(&line, &capacity, file) > 0, let line {
        lines.append(String(cString: line))
    }
    free(line)
    return lines
}

/// Descriptors of this process that are TCP sockets whose local port is `port` (Linux only).
func openSocketDescriptors(localPort port: UInt16) -> Int {
    let digits = String(port, radix: 16, uppercase: true)
    let hexPort = ":" + String(repeating: "0", count: 4 - digits.count) + digits
    var inodes: Set<String> = []
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        for line in procLines(table).dropFirst() {
            let columns = line.split(separator: " ")
            guard columns.count > 9, columns[1].hasSuffix(hexPort) else { continue }
            inodes.insert(String(columns[9]))
        }
    }
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.filter { name in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
            target.hasPrefix("socket:[")
        else { return false }
        return inodes.contains(String(target.dropFirst(8).dropLast()))
    }.count
}
#endif
