import AuthCore

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

    init(now: Instant) { self.now = now }

    /// Surveys a world: the lifecycle state first (collecting state facts), then the environment.
    static func of<M: Lifecycle>(_ world: World<M>) -> Survey {
        var survey = Survey(now: world.now)
        survey.inState = true
        survey.visit(world.state)
        survey.inState = false
        survey.tag(0xFF)
        survey.visit(world.network)
        survey.visit(world.timers)
        survey.visit(world.vault)
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
        switch value {
        case let id as RequestID:
            if inState { referencedRequests.append(id) }
            let name = requestNames[id.rawValue] ?? requestNames.count
            requestNames[id.rawValue] = name
            tag(1)
            number(Int64(name))
        case is RequestIDs:
            tag(2)  // Counters are symmetric: only their relation to the ids in use matters.
        case let instant as Instant:
            tag(3)
            number(instant.milliseconds &- now.milliseconds)
        case let secret as any AnySecret:
            let revealed = secret.revealedForVerification()
            secrets.append(revealed)
            if secret.isIssuedByServer {
                let slot = secret.secretLabel + "\u{0}" + revealed
                let name = secretNames[slot] ?? secretNames.count
                secretNames[slot] = name
                tag(4)
                number(Int64(name))
                if let (prefix, index) = Symbols.parse(revealed) {
                    highestSymbol[prefix] = max(highestSymbol[prefix] ?? 0, index)
                }
            } else {
                tag(5)
                text(revealed)
            }
        case let string as String:
            tag(6)
            text(string)
        case let int as Int:
            tag(7)
            number(Int64(int))
        case let int as Int64:
            tag(7)
            number(int)
        case let int as UInt64:
            tag(7)
            number(Int64(bitPattern: int))
        case let bool as Bool:
            tag(bool ? 8 : 9)
        default:
            visitStructure(value)
        }
    }

    private mutating func visitStructure(_ value: Any) {
        if inState, let session = value as? SessionLifecycle.Phase { sessionPhases.append(session) }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .enum:
            let caseName = mirror.children.first?.label ?? String(describing: value)
            if inState, value is any LifecyclePhase {
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
    String(reflecting: type).replacingOccurrences(of: "AuthCore.", with: "")
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
