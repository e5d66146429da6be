import Testing
@testable import AuthCore

/// How completely one lifecycle's table covers its (phase case × event case) pairs.
struct CoverageEntry: Sendable, CustomTestStringConvertible {
    var lifecycle: String
    var covered: Set<String>
    var expected: Set<String>
    var rowCount: Int
    var testDescription: String { lifecycle }

    init<Machine: Lifecycle>(
        _ lifecycle: String, _ rows: [Row<Machine>], phases: [String], intents: [String],
        phaseCase: (Machine.Phase) -> String = { Coverage.caseName($0) },
        intentCase: (Machine.Intent) -> String = { Coverage.caseName($0) }
    ) {
        self.lifecycle = lifecycle
        self.covered = Coverage.pairs(rows, phaseCase: phaseCase, intentCase: intentCase)
        self.expected = Coverage.expected(phases: phases, intents: intents)
        self.rowCount = rows.count
    }

    static let all: [CoverageEntry] =
        [
            CoverageEntry(
                "CodeRegistration", CodeRegistrationTable.rows, phases: CodeRegistrationTable.phaseCases, intents: CodeRegistrationTable.intentCases),
            CoverageEntry(
                "OneTimeCodeSignIn (email)", OneTimeCodeSignInTable.emailRows, phases: OneTimeCodeSignInTable.phaseCases,
                intents: OneTimeCodeSignInTable.intentCases),
            CoverageEntry(
                "OneTimeCodeSignIn (phone)", OneTimeCodeSignInTable.phoneRows, phases: OneTimeCodeSignInTable.phaseCases,
                intents: OneTimeCodeSignInTable.intentCases),
            CoverageEntry(
                "PasswordSignIn", PasswordSignInTable.rows, phases: PasswordSignInTable.phaseCases, intents: PasswordSignInTable.intentCases),
            CoverageEntry("Registration", RegistrationTable.rows, phases: RegistrationTable.phaseCases, intents: RegistrationTable.intentCases),
            CoverageEntry(
                "PasswordReset (code with auto-login)", PasswordResetTable.codeRows, phases: PasswordResetTable.phaseCases,
                intents: PasswordResetTable.intentCases),
            CoverageEntry(
                "PasswordReset (emailed token)", PasswordResetTable.tokenRows, phases: PasswordResetTable.phaseCases,
                intents: PasswordResetTable.intentCases),
            CoverageEntry(
                "PasswordReset (emailed link)", PasswordResetTable.linkRows, phases: PasswordResetTable.phaseCases,
                intents: PasswordResetTable.intentCases),
            CoverageEntry("OAuthSignIn", OAuthSignInTable.rows, phases: OAuthSignInTable.phaseCases, intents: OAuthSignInTable.intentCases),
            CoverageEntry(
                "OpenIDSignIn", OpenIDSignInTable.rows, phases: OpenIDSignInTable.phaseCases, intents: OpenIDSignInTable.intentCases),
            CoverageEntry(
                "DeviceSignIn", DeviceSignInTable.rows, phases: DeviceSignInTable.phaseCases, intents: DeviceSignInTable.intentCases),
            CoverageEntry(
                "SessionLifecycle", SessionTable.rows, phases: SessionTable.phaseCases, intents: SessionTable.intentCases,
                phaseCase: SessionTable.caseName),
            CoverageEntry(
                "RealtimeConnection", RealtimeConnectionTable.rows, phases: RealtimeConnectionTable.phaseCases,
                intents: RealtimeConnectionTable.intentCases),
            CoverageEntry("OneOf", OneOfTable.rows, phases: OneOfTable.phaseCases, intents: OneOfTable.intentCases),
            CoverageEntry("Handover", HandoverTable.rows, phases: HandoverTable.phaseCases, intents: HandoverTable.intentCases),
            CoverageEntry(
                "SessionWithRealtime", SessionWithRealtimeTable.rows, phases: SessionWithRealtimeTable.phaseCases,
                intents: SessionWithRealtimeTable.intentCases, phaseCase: { Coverage.caseName($0.connection) },
                intentCase: SessionWithRealtimeTable.intentCase),
        ]
        + SessionTable.policies.map { label, machine in
            CoverageEntry(
                "SessionLifecycle (\(label))", SessionTable.rows.filter { $0.machine.policy == machine.policy }, phases: SessionTable.phaseCases,
                intents: SessionTable.intentCases, phaseCase: SessionTable.caseName)
        }
}

@Suite("Transition coverage")
struct TransitionCoverageTests {
    /// Every entry must be complete; the session's union entry is left out of the total, which
    /// counts each backend's session table instead.
    static let required = CoverageEntry.all

    @Test("every (phase case × event case) pair of the lifecycle has a row", arguments: required)
    func everyPairIsCovered(_ entry: CoverageEntry) {
        let missing = entry.expected.subtracting(entry.covered).sorted()
        let unexpected = entry.covered.subtracting(entry.expected).sorted()
        #expect(missing.isEmpty, "missing pairs: \(missing)")
        #expect(unexpected.isEmpty, "pairs of undeclared cases: \(unexpected)")
        #expect(entry.covered.intersection(entry.expected).count == entry.expected.count)
    }

    @Test("the tables' pair counts are phases × events, and their total is printed")
    func totalPairs() {
        // Every intent, a current and a stale reply, a tick, a launch, a withdrawal.
        let resetPairs = PasswordReset.Phase.declaredCases.count * (PasswordReset.Intent.declaredCases.count + 5)
        let expectedCounts = [
            "CodeRegistration": 6 * 9, "OneTimeCodeSignIn (email)": 8 * 9, "OneTimeCodeSignIn (phone)": 8 * 9, "PasswordSignIn": 5 * 7,
            "Registration": 5 * 7, "PasswordReset (code with auto-login)": resetPairs, "PasswordReset (emailed token)": resetPairs,
            "PasswordReset (emailed link)": resetPairs, "OAuthSignIn": 5 * 9, "OpenIDSignIn": 4 * 8, "DeviceSignIn": 5 * 7,
            "SessionLifecycle": 8 * 11,
            "SessionLifecycle (Anonymous Wall)": 8 * 11,
            "SessionLifecycle (Everday)": 8 * 11, "SessionLifecycle (Subspace)": 8 * 11, "SessionLifecycle (Hero365)": 8 * 11,
            "SessionLifecycle (VynqTalk)": 8 * 11, "RealtimeConnection": 8 * 7,
            "OneOf": 2 * 7, "Handover": 2 * 7, "SessionWithRealtime": 8 * 12,
        ]
        var total = 0
        for entry in Self.required {
            let count = entry.covered.intersection(entry.expected).count
            #expect(count == expectedCounts[entry.lifecycle], "\(entry.lifecycle)")
            if entry.lifecycle != "SessionLifecycle" { total += count }
        }
        let rows = Self.required.filter { !$0.lifecycle.hasPrefix("SessionLifecycle (") }.reduce(0) { $0 + $1.rowCount }
        print("transition pairs covered: \(total) (in \(rows) rows)")
        #expect(total == expectedCounts.values.reduce(0, +) - expectedCounts["SessionLifecycle", default: 0])
    }
}

/// A table's own list of phase and intent cases against the reducer's declared lists, so that a
/// new case in a reducer fails here until its table has rows for it.
struct DeclaredCases: Sendable, CustomTestStringConvertible {
    var lifecycle: String
    var tablePhases: [String]
    var declaredPhases: [String]
    var tableIntents: [String]
    var declaredIntents: [String]
    var testDescription: String { lifecycle }

    static let all: [DeclaredCases] = [
        .init(
            lifecycle: "CodeRegistration", tablePhases: CodeRegistrationTable.phaseCases, declaredPhases: CodeRegistration.Phase.declaredCases,
            tableIntents: CodeRegistrationTable.intentCases, declaredIntents: CodeRegistration.Intent.declaredCases),
        .init(
            lifecycle: "OneTimeCodeSignIn", tablePhases: OneTimeCodeSignInTable.phaseCases, declaredPhases: OneTimeCodeSignIn.Phase.declaredCases,
            tableIntents: OneTimeCodeSignInTable.intentCases, declaredIntents: OneTimeCodeSignIn.Intent.declaredCases),
        .init(
            lifecycle: "PasswordSignIn", tablePhases: PasswordSignInTable.phaseCases, declaredPhases: PasswordSignIn.Phase.declaredCases,
            tableIntents: PasswordSignInTable.intentCases, declaredIntents: PasswordSignIn.Intent.declaredCases),
        .init(
            lifecycle: "Registration", tablePhases: RegistrationTable.phaseCases, declaredPhases: Registration.Phase.declaredCases,
            tableIntents: RegistrationTable.intentCases, declaredIntents: Registration.Intent.declaredCases),
        .init(
            lifecycle: "PasswordReset", tablePhases: PasswordResetTable.phaseCases, declaredPhases: PasswordReset.Phase.declaredCases,
            tableIntents: PasswordResetTable.intentCases, declaredIntents: PasswordReset.Intent.declaredCases),
        .init(
            lifecycle: "OAuthSignIn", tablePhases: OAuthSignInTable.phaseCases, declaredPhases: OAuthSignIn.Phase.declaredCases,
            tableIntents: OAuthSignInTable.intentCases, declaredIntents: OAuthSignIn.Intent.declaredCases),
        .init(
            lifecycle: "OpenIDSignIn", tablePhases: OpenIDSignInTable.phaseCases, declaredPhases: OpenIDSignIn.Phase.declaredCases,
            tableIntents: OpenIDSignInTable.intentCases, declaredIntents: OpenIDSignIn.Intent.declaredCases),
        .init(
            lifecycle: "DeviceSignIn", tablePhases: DeviceSignInTable.phaseCases, declaredPhases: DeviceSignIn.Phase.declaredCases,
            tableIntents: DeviceSignInTable.intentCases, declaredIntents: DeviceSignIn.Intent.declaredCases),
        .init(
            lifecycle: "SessionLifecycle", tablePhases: SessionTable.phaseCases, declaredPhases: SessionTable.declaredPhaseCases,
            tableIntents: SessionTable.intentCases, declaredIntents: SessionLifecycle.Intent.declaredCases),
        .init(
            lifecycle: "RealtimeConnection", tablePhases: RealtimeConnectionTable.phaseCases, declaredPhases: RealtimeConnection.Phase.declaredCases,
            tableIntents: RealtimeConnectionTable.intentCases, declaredIntents: RealtimeConnection.Intent.declaredCases),
    ]
}

@Test("each table lists exactly the phase and intent cases its reducer declares", arguments: DeclaredCases.all)
func tablesMatchDeclaredCases(_ entry: DeclaredCases) {
    #expect(entry.tablePhases.sorted() == entry.declaredPhases.sorted())
    #expect(entry.tableIntents.sorted() == entry.declaredIntents.sorted())
}
