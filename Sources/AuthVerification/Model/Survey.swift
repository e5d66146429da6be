import AuthCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One structural pass over a world: its canonical key and the facts invariants need.
///
/// The canonical key is the explorer's symmetry reduction (as TLC's symmetry sets): request ids
/// and server-issued tokens are renumbered in order of first appearance, every ``Instant`` is
/// written relative to the world's `now`, and request counters are left out. A reducer only
/// compares ids and tokens for equality, issues ids greater than any in use, and compares
/// instants with each other, so two worlds with the same key behave the same: merging them loses
/// no behaviour, and it keeps the space finite although rotation issues new tokens forever.
struct Survey {
    /// The canonical key.
    private(set) var key: [UInt8] = []
    /// Request ids referenced by the lifecycle state (not by the network or history).
    private(set) var referencedRequests: [RequestID] = []
    /// Every secret value in the surveyed values, revealed (for leak checks).
    private(set) var secrets: [String] = []
    /// Refresh tokens met outside the history (state, network, vault), revealed.
    private(set) var liveRefreshTokens: [String] = []
    /// (phase type, case) pairs met in the state.
    private(set) var phaseCases: [PhaseCase] = []
    /// Session phases met in the state, outermost first.
    private(set) var sessionPhases: [SessionLifecycle.Phase] = []
    /// The highest symbolic index per issued-secret prefix (`at`, `rt`), for naming fresh tokens.
    private(set) var highestSymbol: [String: Int] = [:]

    private let now: Instant
    private var requestNames: [UInt64: Int] = [:]
    private var secretNames: [String: Int] = [:]
    private var inState = false
    private var inHistory = false

    init(now: Instant) { self.now = now }

    /// Surveys a world: the lifecycle state first (collecting state facts), then the environment;
    /// `settle` may update the history from those facts before the history is keyed.
    static func of<M: Lifecycle>(_ world: inout World<M>, settle: (inout World<M>, Survey) -> Void) -> Survey {
        var survey = Survey(now: world.now)
        survey.inState = true
        survey.visit(world.state)
        survey.inState = false
        survey.tag(0xFF)
        survey.visit(world.network)
        survey.visit(world.timers)
        survey.visit(world.vault)
        settle(&world, survey)
        survey.inHistory = true
        survey.visit(world.history)
        return survey
    }

    private mutating func tag(_ byte: UInt8) { key.append(byte) }
    private mutating func number(_ value: Int64) {
        var v = UInt64(bitPattern: value)
        repeat {
            key.append(UInt8(v & 0x7F) | (v > 0x7F ? 0x80 : 0))
            v >>= 7
        } while v != 0
    }
    private mutating func text(_ string: String) {
        number(Int64(string.utf8.count))
        key.append(contentsOf: string.utf8)
    }

    mutating func visit(_ value: Any) {
        switch Kind.of(type(of: value)) {
        case .requestID:
            let id = value as! RequestID
            if inState { referencedRequests.append(id) }
            let name = requestNames[id.rawValue] ?? requestNames.count
            requestNames[id.rawValue] = name
            tag(1)
            number(Int64(name))
        case .counter:
            tag(2)  // Counters are symmetric: only their relation to the ids in use matters.
        case .instant:
            tag(3)
            number((value as! Instant).milliseconds &- now.milliseconds)
        case .secret:
            visitSecret(value as! any AnySecret)
        case .string:
            tag(6)
            text(value as! String)
        case .int:
            tag(7)
            number(Int64(value as! Int))
        case .bool:
            tag((value as! Bool) ? 8 : 9)
        case .sessionPhase:
            if inState { sessionPhases.append(value as! SessionLifecycle.Phase) }
            visitStructure(value, isPhase: true)
        case .phase:
            visitStructure(value, isPhase: true)
        case .structure:
            visitStructure(value, isPhase: false)
        }
    }

    private mutating func visitSecret(_ secret: any AnySecret) {
        let revealed = secret.revealedForVerification()
        secrets.append(revealed)
        guard secret.isIssuedByServer else {
            tag(5)
            text(revealed)
            return
        }
        if !inHistory, secret is RefreshToken { liveRefreshTokens.append(revealed) }
        let slot = secret.secretLabel + "\u{0}" + revealed
        let name = secretNames[slot] ?? secretNames.count
        secretNames[slot] = name
        tag(4)
        number(Int64(name))
        if let (prefix, index) = Symbols.parse(revealed) {
            highestSymbol[prefix] = max(highestSymbol[prefix] ?? 0, index)
        }
    }

    private mutating func visitStructure(_ value: Any, isPhase: Bool) {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .enum:
            let caseName = mirror.children.first?.label ?? String(describing: value)
            if inState, isPhase {
                phaseCases.append(PhaseCase(type: typeName(type(of: value)), name: caseName))
            }
            tag(10)
            text(caseName)
        case .optional:
            tag(mirror.children.isEmpty ? 11 : 12)
        default:
            tag(13)
        }
        for child in mirror.children { visit(child.value) }
        tag(14)
    }

    /// What a value's type is to the survey, decided once per type and cached: one dictionary
    /// lookup per value instead of a chain of dynamic casts.
    enum Kind {
        case requestID, counter, instant, secret, string, int, bool, sessionPhase, phase, structure

        private static let cache = KindCache()

        static func of(_ type: Any.Type) -> Kind {
            if let kind = cache.lookup(type) { return kind }
            let kind: Kind =
                if type == RequestID.self { .requestID }
                else if type == RequestIDs.self { .counter }
                else if type == Instant.self { .instant }
                else if type is any AnySecret.Type { .secret }
                else if type == String.self { .string }
                else if type == Int.self { .int }
                else if type == Bool.self { .bool }
                else if type == SessionLifecycle.Phase.self { .sessionPhase }
                else if type is any LifecyclePhase.Type { .phase }
                else { .structure }
            cache.store(type, kind)
            return kind
        }
    }
}

/// The survey's per-type cache, shared by every exploration and fuzzing thread.
private final class KindCache: @unchecked Sendable {
    // Safe: every access holds `lock`.
    private var kinds: [ObjectIdentifier: Survey.Kind] = [:]
    private let mutex = PosixMutex()

    func lookup(_ type: Any.Type) -> Survey.Kind? {
        mutex.lock()
        defer { mutex.unlock() }
        return kinds[ObjectIdentifier(type)]
    }

    func store(_ type: Any.Type, _ kind: Survey.Kind) {
        mutex.lock()
        defer { mutex.unlock() }
        kinds[ObjectIdentifier(type)] = kind
    }
}

/// A PThread mutex (Foundation-free).
private final class PosixMutex: @unchecked Sendable {
    // Safe: a pthread mutex is made for concurrent use; the pointer is allocated once.
    private let handle = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(handle, nil) }
    deinit {
        pthread_mutex_destroy(handle)
        handle.deallocate()
    }
    func lock() { pthread_mutex_lock(handle) }
    func unlock() { pthread_mutex_unlock(handle) }
}

/// A case of a phase type met during exploration.
public struct PhaseCase: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The phase type's name.
    public var type: String
    /// The case.
    public var name: String
    /// Orders by type, then case.
    public static func < (lhs: PhaseCase, rhs: PhaseCase) -> Bool { (lhs.type, lhs.name) < (rhs.type, rhs.name) }
    /// `Type.case`.
    public var description: String { "\(type).\(name)" }
}

/// Symbolic token names: `tok-at-1`, `tok-rt-2`… (distinctive, so a leak check cannot mistake
/// ordinary text for a token).
enum Symbols {
    static func name(_ prefix: String, _ index: Int) -> String { "tok-\(prefix)-\(index)" }
    static func parse(_ name: String) -> (String, Int)? {
        let parts = name.split(separator: "-")
        guard parts.count == 3, parts[0] == "tok", let index = Int(parts[2]) else { return nil }
        return (String(parts[1]), index)
    }
}

/// The readable case path of a phase: `signedIn.active`, `signedOut.first.awaitingCode`,
/// `(active + connected)` for a product of phases. Payloads that are not phases are dropped.
public func casePath(of phase: Any) -> String {
    let mirror = Mirror(reflecting: phase)
    switch mirror.displayStyle {
    case .enum:
        guard let child = mirror.children.first, let label = child.label else { return String(describing: phase) }
        let inner = phasesInside(child.value)
        return inner.isEmpty ? label : label + "." + inner.joined(separator: ".")
    case .struct, .class:
        if phase is any LifecyclePhase {
            return "(" + mirror.children.compactMap { $0.value is any LifecyclePhase ? casePath(of: $0.value) : nil }
                .joined(separator: " + ") + ")"
        }
        return String(describing: phase)
    default:
        return String(describing: phase)
    }
}

private func phasesInside(_ payload: Any) -> [String] {
    if payload is any LifecyclePhase { return [casePath(of: payload)] }
    let mirror = Mirror(reflecting: payload)
    guard mirror.displayStyle == .tuple else { return [] }
    return mirror.children.compactMap { $0.value is any LifecyclePhase ? casePath(of: $0.value) : nil }
}

/// Finds every value of type `T` inside `value` (depth-first, in declaration order).
func collect<T>(_ type: T.Type, in value: Any, into found: inout [T]) {
    if let match = value as? T {
        found.append(match)
        return
    }
    if value is any AnySecret { return }
    let mirror = Mirror(reflecting: value)
    for child in mirror.children { collect(type, in: child.value, into: &found) }
}

/// A type's name without the module: `SessionLifecycle.Phase`, `Either<…>`.
func typeName(_ type: Any.Type) -> String {
    String(reflecting: type).split(separator: "AuthCore.", omittingEmptySubsequences: false).joined()
}
