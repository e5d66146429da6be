import AuthCore
import AuthTestSupport
import Foundation
import Testing

@testable import AuthVerification

/// The invariants judge by rules of their own, written from their sources (``SourceRules``), never
/// by the product's classification of what they check: a product wrong about what an answer or an
/// input is cannot take its oracle with it.
@Suite("Oracles of the kit's own")
struct OracleIndependenceTests {
    /// Everday's "403 pending approval" answer to a refresh taken for a transient failure: the
    /// session keeps its credentials. (Re-created from a bug that passed `authflow verify` while the
    /// invariant asked `AuthFailure.isTransient`, wrong the same way.)
    static let pendingApprovalRefreshKept = Mutant<SmallModels.SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        if case .reply(let id, .failed(.pendingApproval), let at) = event, case .signedIn(.active(let session)) = phase,
            case .refreshing(let current, _) = session.refresh, current == id
        {
            return base.step(&phase, .reply(id, .failed(.server(status: 503, nil)), at: at), &requests)
        }
        return base.step(&phase, event, &requests)
    }

    @Test("a session that takes a refresh's 403 pending approval for transient breaks 'only definitive refresh errors end the session'")
    func pendingApprovalRefreshIsCaught() throws {
        let family = SmallModels.RotatingSession(failures: [.pendingApproval(nil), .network])
        let original = Explorer.explore(family("original", SmallModels.rotating))
        #expect(original.passed, "\(original.violations.map(\.description))")
        let broken = Explorer.explore(family("pendingApprovalRefreshKept", Self.pendingApprovalRefreshKept))
        let violation = try #require(broken.violations.first { $0.invariant == "only definitive refresh errors end the session" })
        #expect(violation.trace.count == 4, "sign in (2), refresh (1), 403 pending approval (1): \(violation.trace.count)")
    }

    /// Product classifications an oracle must not ask.
    static let productJudgements = [
        "isTransient", "userMessage", ".validate(", "try? Email(", "try? Password(", "try? VerificationCode(", "try? PhoneNumber(",
        "try? Username(", "tokenUsable", "applied(to:", "minimumLength", "maximumLength",
    ]

    @Test("no invariant, model rule or engine check in AuthVerification calls the product's classification")
    func noSharedJudgement() throws {
        let folder = Checkout.root.appendingPathComponent("Sources/AuthVerification")
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        var scanned = 0
        for case let file as URL in files where file.pathExtension == "swift" {
            scanned += 1
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("///") {
                for judgement in Self.productJudgements where line.contains(judgement) {
                    Issue.record("\(file.lastPathComponent):\(number + 1) asks the product: \(judgement)")
                }
            }
        }
        #expect(scanned > 20)
    }

    @Test(
        "refresh answers: 400, 401, 403 and pending approval are refusals; the rest judge nothing about the token",
        arguments: [
            (AuthFailure.badRequest(nil), true), (.unauthorized(nil), true), (.forbidden(nil), true), (.pendingApproval(nil), true),
            (.network, false), (.timeout, false), (.server(status: 503, nil), false), (.rateLimited(retryAfter: nil), false),
            (.malformed, false), (.notFound(nil), false), (.conflict(nil), false),
        ])
    func refreshRefusals(failure: AuthFailure, refused: Bool) {
        #expect(SourceRules.refreshRefused(failure) == refused)
        #expect(SourceRules.environmentFailed(failure) == !refused, "no answer is both the environment failing and a refusal")
    }

    /// A round of a server sign-out ends at a lost request only at its last send
    /// (`History.roundAttempts` before the step: the sends left, the lost one included), or where
    /// the server's 429 window on the sign-out endpoints holds the next send back; an answer that
    /// settles the token, or a 429, ends it at once; a retry sent in the same step never does.
    @Test("a lost sign-out request ends its round only at the last send, or in the server's 429 window")
    func roundEnds() {
        let token = RefreshToken("rt-1")
        let now = Instant(milliseconds: 1_000)
        let revoke = Exchange(id: RequestID(2), request: .revoke(token, Bearer(token: AccessToken("at-1"), userID: "u1")), opened: false)
        let last = [RoundAttempts(refreshToken: token, revoking: true, left: 1)]
        let oneMore = [RoundAttempts(refreshToken: token, revoking: true, left: 2)]
        let window = [RateLimitWindow(endpoint: "revoke", until: now + .seconds(30))]
        func ends(_ reply: Reply, sent: [APIRequest] = [], windows: [RateLimitWindow] = [], left: [RoundAttempts]) -> Bool {
            SourceRules.endsRound(of: token, answered: revoke, reply: reply, sent: sent, windows: windows, at: now, attemptsLeft: left)
        }
        #expect(ends(.failed(.network), left: last), "the last send lost")
        #expect(ends(.failed(.network), left: []), "a round the kit did not count (one send a round)")
        #expect(!ends(.failed(.network), left: oneMore), "a send left")
        #expect(ends(.failed(.network), windows: window, left: oneMore), "a send left, held back by the server's wait")
        #expect(!ends(.failed(.network), sent: [revoke.request], left: oneMore), "retried at once")
        #expect(ends(.failed(.rateLimited(retryAfter: .seconds(30))), left: oneMore), "the server's 429")
        #expect(ends(.accepted(nil), left: oneMore) && ends(.failed(.forbidden(nil)), left: oneMore), "settled")
        #expect(SourceRules.retriedInRound(revoke.request, .realtimeClosed), "an answer of another kind is read as malformed")
        #expect(!SourceRules.retriedInRound(revoke.request, .failed(.unauthorized(nil))), "a refused bearer: renew, not retry")
        #expect(!SourceRules.retriedInRound(.refresh(token), .failed(.unauthorized(nil))), "a refused renewal shows the token dead")
        #expect(SourceRules.retriedInRound(.refresh(token), .failed(.timeout)))
    }

    @Test("input rules from their sources, on the boundaries")
    func inputRules() {
        #expect(SourceRules.isPassword("12345678") && !SourceRules.isPassword("1234567"))
        #expect(SourceRules.isPassword(String(repeating: "p", count: 1_024)) && !SourceRules.isPassword(String(repeating: "p", count: 1_025)))
        #expect(SourceRules.isCode("246810") && !SourceRules.isCode("24x8") && !SourceRules.isCode("2468101") && !SourceRules.isCode("٢٤٦٨١٠"))
        #expect(SourceRules.isEmail("student@harvard.edu") && SourceRules.isEmail(Inputs.email))
        for bad in [Inputs.badEmail, "@harvard.edu", "a@b", "a@b.c", "a b@c.de", "a@@c.de", "a@c..de", String(repeating: "a", count: 65) + "@c.de"] {
            #expect(!SourceRules.isEmail(bad), "\(bad)")
        }
        #expect(SourceRules.isPhone("+12345678900") && !SourceRules.isPhone("+0123456789") && !SourceRules.isPhone("2345678900"))
        #expect(!SourceRules.isPhone("+1234567") && SourceRules.isPhone("+12345678") && !SourceRules.isPhone("+1234567890123456"))
        #expect(SourceRules.isUsername(Inputs.username) && !SourceRules.isUsername("") && !SourceRules.isUsername("new kid"))
        #expect(SourceRules.isUsername("kid.#_-9") && SourceRules.isUsername(String(repeating: "k", count: 64)))
        #expect(!SourceRules.isUsername(String(repeating: "k", count: 65)) && !SourceRules.isUsername("kid/9"))
        #expect(SourceRules.isName("New Kid") && !SourceRules.isName(" ") && !SourceRules.isName(String(repeating: "N", count: 256)))
        #expect(SourceRules.isUsernameOrEmail(Inputs.email) && SourceRules.isUsernameOrEmail(Inputs.username))
        #expect(!SourceRules.isUsernameOrEmail(Inputs.badEmail) && !SourceRules.isUsernameOrEmail("   "))
    }

    @Test("input rules count characters as the user sees them, and refuse non-ASCII where their source is ASCII")
    func nonASCIIInputRules() {
        func repeated(_ character: Character, _ count: Int) -> String { String(repeating: character, count: count) }
        // 14 bytes, 14 scalars, 8 scalars and 16 UTF-16 units: 7, 7 and 4 characters.
        for short in [repeated("\u{E9}", 7), repeated("e\u{301}", 7), repeated("\u{1F44D}\u{1F3FD}", 4)] {
            #expect(!SourceRules.isPassword(short), "\(short.unicodeScalars.count) scalars")
        }
        #expect(SourceRules.isPassword(repeated("\u{E9}", 8)) && SourceRules.isPassword(Inputs.password.reveal()))
        #expect(SourceRules.isPassword(repeated("\u{1F600}", 1_024)) && !SourceRules.isPassword(repeated("\u{1F600}", 1_025)))
        #expect(!SourceRules.isEmail("st\u{FC}dent@harvard.edu") && !SourceRules.isEmail("student@h\u{E4}rvard.edu"))
        #expect(!SourceRules.isUsernameOrEmail("st\u{FC}dent@harvard.edu") && !SourceRules.isUsernameOrEmail("n\u{EB}wkid"))
        #expect(!SourceRules.isUsername("n\u{EB}wkid") && !SourceRules.isUsername(repeated("\u{E9}", 3)))
        #expect(!SourceRules.isName("\u{A0}\u{3000}") && SourceRules.isName(repeated("\u{E9}", 255)) && !SourceRules.isName(repeated("\u{E9}", 256)))
    }
}
