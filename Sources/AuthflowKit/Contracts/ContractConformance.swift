import AuthCore
import AuthRuntime
import AuthVerification
import Foundation

/// What ``ContractConformance/check(_:against:seed:)`` found for one contract.
public struct ContractConformanceReport: Sendable {
    /// The backend whose contract was checked.
    public var backend: Backend
    /// Request fixtures checked: each encodes to its method, path, query, headers and JSON body.
    public var requests: Int
    /// Response fixtures checked: each decodes to the reply its sidecar expects.
    public var responses: Int
    /// Damaged answers decoded: every fixture answer truncated, replaced by random bytes, or with
    /// one byte changed.
    public var damagedBodies: Int
    /// What the contract got wrong, one line each, naming the fixture (never a secret: header
    /// values and body values are left out).
    public var problems: [String]

    /// True when the contract kept every fixture and read every damaged answer as it should.
    public var passed: Bool { problems.isEmpty }
}

/// Checks a contract against the fixture library (``ContractFixtures``), as `authflow verify` does
/// for every shipped contract, so a contract that misreads an answer fails the same command as a
/// reducer that breaks an invariant:
///
/// - **Requests.** Each request fixture's `APIRequest` encodes to the fixture: method, path, host,
///   query, exactly the listed headers (names in any casing, none twice) and a JSON body equal as
///   a value.
/// - **Answers.** Each response fixture decodes to the sidecar's reply.
/// - **Damaged answers.** Each response fixture's body cut at every length from one byte (an empty body is an answer of its own), replaced by random
///   bytes, and with one byte changed at random (seeded, so a failure repeats), never traps and
///   reads as a contract must read an answer it cannot understand: a success status as
///   `.failed(.malformed)` (or, where the contract reads no body at all, as the full and the
///   empty body both read); an error status as a failure of the kind the full body or an empty body gives,
///   or as malformed. A damaged body that is still JSON is another answer, judged by the fixtures
///   alone; `text/plain` answers are only decoded (any text is a message).
public enum ContractConformance {
    /// When every fixture answer is received (only `Retry-After` dates depend on it).
    public static let receivedAt = Instant.seconds(1_767_225_600)
    /// Random bodies and one-byte changes per response fixture.
    public static let randomBodiesPerFixture = 24
    /// The most cut lengths per response fixture: every length up to this, evenly spread beyond.
    public static let cutsPerFixture = 512

    /// Checks `contract` against `fixtures` (those of its backend are used).
    public static func check(_ contract: any BackendContract, against fixtures: [ContractFixture], seed: UInt64 = 0xA17C_0DE5)
        -> ContractConformanceReport
    {
        var report = ContractConformanceReport(backend: contract.backend, requests: 0, responses: 0, damagedBodies: 0, problems: [])
        var random = SplitMix64(seed: seed)
        for fixture in fixtures where fixture.backend == contract.backend {
            do {
                if fixture.isRequest {
                    report.requests += 1
                    report.problems += try requestProblems(contract, fixture)
                } else {
                    report.responses += 1
                    let (problems, damaged) = try answerProblems(contract, fixture, random: &random)
                    report.problems += problems
                    report.damagedBodies += damaged
                }
            } catch {
                report.problems.append("\(fixture.name): \(error)")
            }
        }
        if report.requests + report.responses == 0 { report.problems.append("\(contract.backend.id): no fixture to check the contract against") }
        return report
    }

    /// Every shipped contract (`Backend.documented`'s) checked against the library at `root`.
    public static func checkShipped(fixturesAt root: URL) throws -> [ContractConformanceReport] {
        let fixtures = try ContractFixtures.load(at: root)
        return try Backend.documented.map { backend in
            guard let fixture = fixtures.first(where: { $0.backend == backend }) else {
                throw ContractFixtures.Problem("\(backend.id) has no fixtures in \(root.path)")
            }
            return check(try fixture.contract(), against: fixtures)
        }
    }

    /// How `fixture`'s request, encoded by `contract`, differs from the fixture.
    static func requestProblems(_ contract: any BackendContract, _ fixture: ContractFixture) throws -> [String] {
        guard let expected = fixture.entry.http else { throw ContractFixtures.Problem("a request fixture without http") }
        let encoded: HTTPRequest
        do {
            encoded = try contract.encode(try fixture.apiRequest())
        } catch {
            return ["\(fixture.name): not encoded (\(error))"]
        }
        var problems: [String] = []
        func differ(_ what: String, _ sent: String?, _ documented: String?) {
            if sent != documented { problems.append("\(fixture.name): sends \(what) \(sent ?? "none"), not \(documented ?? "none")") }
        }
        differ("method", encoded.method, expected.method)
        differ("path", encoded.url.path, expected.path)
        differ("query", encoded.url.query, expected.query)
        differ("host", encoded.url.host, URL(string: fixture.baseURL)?.host)
        let names = encoded.headers.map { $0.name.lowercased() }
        if Set(names).count != names.count { problems.append("\(fixture.name): sends a header twice") }
        let sent = Dictionary(encoded.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        let documented = Dictionary(expected.headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        for name in Set(sent.keys).union(documented.keys).sorted() where sent[name] != documented[name] {
            // The values stay out: a header may carry a bearer.
            let how = sent[name] == nil ? "does not send" : documented[name] == nil ? "sends an undocumented" : "sends another value of"
            problems.append("\(fixture.name): \(how) header \(name)")
        }
        let body = (try? encoded.body.map(FixtureJSON.parse)) ?? (encoded.body == nil ? .null : nil)
        let fixtureBody = try fixture.body()
        if body != fixtureBody {
            let keys = Set(body?.keys ?? []).symmetricDifference(fixtureBody.keys).sorted()
            // The values stay out: a body may carry a password or a code.
            problems.append(
                "\(fixture.name): the JSON body differs" + (keys.isEmpty ? " in a value" : " in its keys (\(keys.joined(separator: ", ")))"))
        }
        return problems
    }

    /// How `contract` misreads `fixture`'s answer or a damaged copy of it, and how many damaged
    /// copies it read.
    static func answerProblems(_ contract: any BackendContract, _ fixture: ContractFixture, random: inout SplitMix64) throws -> (
        [String], Int
    ) {
        let request = try fixture.apiRequest()
        let response = try fixture.response()
        let expected = try fixture.expectedReply()
        func decode(_ body: Data) -> Reply {
            var damaged = response
            damaged.body = body
            return contract.decode(damaged, for: request, receivedAt: receivedAt)
        }
        var problems: [String] = []
        let full = decode(response.body)
        if full != expected { problems.append("\(fixture.name): reads as \(full), not as \(expected)") }
        guard !response.body.isEmpty, fixture.entry.contentType != "text/plain" else { return (problems, 0) }

        let empty = decode(Data())
        let success = (200..<300).contains(response.status)
        var bodies: [(String, Data)] = []
        let bytes = Array(response.body)
        let step = max(1, bytes.count / cutsPerFixture)
        // From one byte: an empty body is an answer of its own (a bare 200), not a damaged one.
        for length in stride(from: 1, to: bytes.count, by: step) { bodies.append(("cut to \(length) bytes", Data(bytes[..<length]))) }
        for index in 0..<randomBodiesPerFixture {
            if index.isMultiple(of: 2) {
                let length = Int.random(in: 1...64, using: &random)
                bodies.append(("replaced by \(length) random bytes", Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })))
            } else {
                var changed = bytes
                let at = Int.random(in: 0..<changed.count, using: &random)
                changed[at] = UInt8.random(in: 0...255, using: &random)
                bodies.append(("with byte \(at) changed", Data(changed)))
            }
        }
        for (how, body) in bodies {
            // Still JSON: another answer, which the fixtures judge.
            if (try? JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed)) != nil { continue }
            let reply = decode(body)
            // An empty body's reading is an excuse only where the contract reads no body at all.
            if reply == .failed(.malformed) || (reply == empty && empty == full) { continue }
            if !success, case .failed(let failure) = reply, [full, empty].contains(where: { kind(of: $0) == kind(of: .failed(failure)) }) {
                continue
            }
            problems.append(
                "\(fixture.name): \(success ? "a success" : "an error") answer \(how) reads as \(reply), not as "
                    + (success ? "malformed" : "the status's failure"))
            break  // One damaged body per fixture says enough.
        }
        return (problems, bodies.count)
    }

    /// A reply's kind: its case, and a failure's case, without what they carry.
    static func kind(of reply: Reply) -> String {
        guard case .failed(let failure) = reply else { return caseName(reply) }
        return "failed." + caseName(failure)
    }

    /// The case of an enum value, without its associated values.
    private static func caseName(_ value: Any) -> String {
        Mirror(reflecting: value).children.first?.label ?? String(describing: value)
    }
}
