import AuthCore
@testable import AuthRuntime
import AuthSupport
import Foundation

/// What the client really put on the wire and got back, under the redacted log: the tests'
/// source for the secrets that must never show up anywhere else, and for checks made at the
/// moment a request leaves.
final class WireTap: Sendable {
    /// One request and how it ended.
    struct Exchange: Sendable {
        var request: HTTPRequest
        var answer: Result<HTTPResponse, TransportError>
    }

    private struct Storage {
        var exchanges: [Exchange] = []
        var sending: [@Sendable (HTTPRequest) -> Void] = []
        var holds: [(path: String, gate: Gate)] = []
    }

    private let storage = Locked(Storage())

    /// Every finished exchange, in the order they finished.
    var exchanges: [Exchange] { storage.withLock { $0.exchanges } }

    /// Exchanges whose path ends with `suffix`.
    func exchanges(to suffix: String) -> [Exchange] { exchanges.filter { $0.request.url.path.hasSuffix(suffix) } }

    /// Calls `check` with every request as it leaves (before it is sent).
    func onSend(_ check: @escaping @Sendable (HTTPRequest) -> Void) {
        storage.withLock { $0.sending.append(check) }
    }

    /// Holds requests whose path ends with `suffix` until `gate` opens.
    func hold(_ suffix: String, until gate: Gate) {
        storage.withLock { $0.holds.append((suffix, gate)) }
    }

    fileprivate func leaving(_ request: HTTPRequest) async {
        let (checks, gates) = storage.withLock { storage in
            (storage.sending, storage.holds.filter { request.url.path.hasSuffix($0.path) }.map(\.gate))
        }
        for check in checks { check(request) }
        for gate in gates { _ = await gate.wait() }
    }

    fileprivate func record(_ exchange: Exchange) {
        storage.withLock { $0.exchanges.append(exchange) }
    }

    /// Every secret that crossed the wire in either direction: string values of fields named like
    /// a secret (passwords, codes, tokens, in any casing, at any depth), bearer credentials,
    /// `?token=` values, and JWT-shaped strings wherever they were.
    func secrets() -> Set<String> {
        var found: Set<String> = []
        for exchange in exchanges {
            let request = exchange.request
            found.formUnion(Self.secrets(inBody: request.body))
            for field in request.headers where LogRedaction.isSecretName(field.name) {
                found.insert(field.value.hasPrefix("Bearer ") ? String(field.value.dropFirst(7)) : field.value)
            }
            for item in URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            where LogRedaction.isSecretName(item.name) {
                if let value = item.value { found.insert(value) }
            }
            if case .success(let response) = exchange.answer {
                found.formUnion(Self.secrets(inBody: response.body))
            }
        }
        return found.filter { $0.count >= 4 }
    }

    /// Secret-named string fields and JWT-shaped strings in a JSON body.
    static func secrets(inBody body: Data?) -> Set<String> {
        guard let body, let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else { return [] }
        var found: Set<String> = []
        func walk(_ value: Any, secretName: Bool) {
            switch value {
            case let object as [String: Any]:
                for (key, child) in object { walk(child, secretName: LogRedaction.isSecretName(key)) }
            case let array as [Any]:
                for child in array { walk(child, secretName: secretName) }
            case let string as String:
                if secretName || LogRedaction.looksLikeCredential(string) { found.insert(string) }
            default:
                break
            }
        }
        walk(json, secretName: false)
        return found
    }
}

/// A transport that lets a ``WireTap`` see (and, when asked, hold) every request and its answer.
struct TappedTransport: HTTPTransport {
    let base: any HTTPTransport
    let tap: WireTap

    init(_ base: any HTTPTransport, tap: WireTap) {
        self.base = base
        self.tap = tap
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        await tap.leaving(request)
        do {
            let response = try await base.send(request)
            tap.record(WireTap.Exchange(request: request, answer: .success(response)))
            return response
        } catch {
            tap.record(WireTap.Exchange(request: request, answer: .failure(error)))
            throw error
        }
    }
}

/// The redacted log: an ``HTTPLogRecorder`` and a ``LineLogger`` writing into a buffer.
final class LogSink: HTTPLogger {
    let recorder = HTTPLogRecorder()
    private let buffer = Locked<[String]>([])
    private let lineLogger: LineLogger

    init() {
        let buffer = buffer
        lineLogger = LineLogger { line in buffer.withLock { $0.append(line) } }
    }

    func record(_ entry: HTTPLogEntry) {
        recorder.record(entry)
        lineLogger.record(entry)
    }

    /// Every line both loggers hold.
    var lines: [String] { recorder.lines + buffer.withLock { $0 } }
}

/// Finds secrets in text that anyone could read.
enum Leaks {
    /// Every `secret in text` pair where a secret (or, for a JWT, its payload or signature part)
    /// appears in one of `texts`. All-digit secrets (codes) count only as a whole word, so a
    /// digit run inside a user id or a timestamp is not mistaken for one.
    static func find(_ secrets: some Sequence<String>, in texts: [String]) -> [String] {
        var leaks: [String] = []
        for secret in secrets {
            for needle in needles(for: secret) {
                for text in texts where contains(text, needle) {
                    // Name the secret by its first characters only, and mask it in the excerpt.
                    let excerpt = text.replacingOccurrences(of: needle, with: "‹LEAKED›").prefix(300)
                    leaks.append("a secret starting ‹\(needle.prefix(4))…› in: \(excerpt)")
                }
            }
        }
        return leaks
    }

    private static func needles(for secret: String) -> [String] {
        let parts = secret.split(separator: ".")
        guard parts.count == 3, secret.hasPrefix("eyJ") else { return [secret] }
        return [secret] + parts.dropFirst().map(String.init).filter { $0.count >= 16 }
    }

    private static func contains(_ text: String, _ needle: String) -> Bool {
        guard needle.allSatisfy(\.isNumber) else { return text.contains(needle) }
        var rest = Substring(text)
        while let range = rest.range(of: needle) {
            let before = range.lowerBound == rest.startIndex ? nil : rest[rest.index(before: range.lowerBound)]
            let after = range.upperBound == rest.endIndex ? nil : rest[range.upperBound]
            let isWordCharacter = { (character: Character?) in character.map { $0.isLetter || $0.isNumber } ?? false }
            if !isWordCharacter(before) && !isWordCharacter(after) { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }
}
