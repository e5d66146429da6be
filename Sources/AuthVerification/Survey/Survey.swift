import AuthCore

/// A value the verification kit walks without reflection: it feeds its parts to a ``Survey``, in
/// a fixed order, with an exhaustive `switch` for enums.
///
/// AuthCore's types conform in this module. A type of yours that does not conform is surveyed
/// through `Mirror` instead: correct, only slower.
public protocol Surveyable {
    /// Feeds every part of this value to `survey`.
    func survey(_ survey: inout Survey)
}

/// One pass over a world: its canonical fingerprint and the facts invariants read.
///
/// The fingerprint is the explorer's canonical form: request ids and server-issued tokens are
/// renamed in order of first appearance, every `Instant` is written relative to the world's `now`
/// — and as "long ago" when it lies further back than the model's horizon — and request counters
/// are left out. Under ``Reduction/symmetric`` (the explorer's default) lists whose order no
/// behaviour reads are surveyed as sets (see `visit(unordered:)`, as TLC's symmetry sets), and the
/// history's "long ago" begins at its horizon (below).
///
/// Why merging loses no behaviour: a reducer only compares ids and tokens for equality, issues ids
/// greater than any in use, and compares a stored instant `x` only with an event's time (never
/// earlier than `now`) through `x + Δ` for intervals `Δ` no longer than the horizon. Every such
/// comparison gives the same answer for all instants further back than the horizon, and instants
/// ahead of `now` are kept exact (their order decides which timer fires first), so two worlds with
/// one fingerprint behave the same up to renaming. The history's instants are read by invariants
/// only, through `t < x + Δ` or `t >= x + Δ`: those answer alike for an instant exactly the
/// history horizon back and for one further back, so under the reduction the history's "long
/// ago" begins at its horizon; the plain search keeps that instant exact, as the state's. (The
/// state's "long ago" begins just past its horizon: a reducer may compare with `<=`, which tells
/// them apart.) The space stays finite although rotation issues new tokens forever: instants
/// ahead are bounded by the longest interval the model schedules, and those behind by the horizon.
public struct Survey {
    /// Which part of the world is being walked.
    public enum Region: Sendable {
        /// The lifecycle's state.
        case state
        /// Network, timers and vault.
        case environment
        /// History variables.
        case history
    }

    /// The part of the world being walked.
    @inlinable public var region: Region { walking }
    /// ``region``'s storage, set as the survey moves on (internal, so that inlinable code can set
    /// it without a public setter and without a call on every survey).
    @usableFromInline var walking: Region = .state

    /// The fingerprint so far.
    @usableFromInline var fingerprint = Fingerprint()
    /// The fingerprint of the lifecycle state alone, taken before the environment is surveyed.
    @usableFromInline var stateFingerprint = Fingerprint()
    /// Request ids the lifecycle state refers to.
    @usableFromInline var referencedRequests: [RequestID] = []
    /// Every secret value met, revealed (for leak checks only).
    @usableFromInline var secrets: [String] = []
    /// Refresh tokens met in the state, network or vault (not the history), revealed.
    @usableFromInline var liveRefreshTokens: [String] = []
    /// The session phase met first in the state, if any.
    @usableFromInline var session: SessionLifecycle.Phase?
    /// The highest symbolic token indices met.
    @usableFromInline var symbols = SymbolCounts()

    @usableFromInline let now: Int64
    @usableFromInline let longAgo: Int64
    @usableFromInline let historyLongAgo: Int64
    /// A digest of one value, not a world's survey: nothing is renamed or made relative, and no
    /// fact is gathered (see ``digest(_:)``).
    @usableFromInline var exact = false
    /// Whether lists whose order no behaviour reads (the network, the history's id lists) are
    /// surveyed as sets: in an order that does not depend on ids (see ``Reduction/symmetric``).
    @usableFromInline var unordered = false
    @usableFromInline var requestNames: [UInt64] = []
    @usableFromInline var intentNames: [UInt64] = []
    @usableFromInline var tokenNames: [String] = []

    /// A survey of a world at `now` whose model forgets exact instants older than `horizon` in
    /// the state and environment, and older than `historyHorizon` in the history variables — or,
    /// under ``Reduction/symmetric``, `historyHorizon` old or older there, with lists whose order
    /// no behaviour reads surveyed as sets.
    @inlinable init(now: Instant, horizon: Interval, historyHorizon: Interval, reduction: Reduction) {
        self.now = now.milliseconds
        self.longAgo = -horizon.milliseconds - 1
        self.historyLongAgo = -historyHorizon.milliseconds - (reduction == .symmetric ? 0 : 1)
        self.unordered = reduction == .symmetric
    }

    /// A 128-bit digest of what `build` surveys, exactly as it is: ids, tokens and instants as they
    /// are, not renamed or made relative. Values with one digest are equal but with probability
    /// about n²/2¹²⁹ for n values, as for a world's fingerprint (n²/2⁶⁵ where parts are surveyed
    /// as hashable values through a hasher, 64 bits each); per-value memos of values many times
    /// larger than a digest key on it.
    @inlinable static func digest(_ build: (inout Survey) -> Void) -> Fingerprint {
        var survey = Survey(now: .seconds(0), horizon: .zero, historyHorizon: .zero, reduction: .plain)
        survey.exact = true
        build(&survey)
        return survey.fingerprint.finished()
    }

    // MARK: What conformances call

    /// Surveys a part.
    @inlinable public mutating func visit<T: Surveyable>(_ value: T) { value.survey(&self) }

    /// Surveys `value` as the conforming type it is. Casting the value itself to `any Surveyable`
    /// would box it (a phase is too large for an existential's inline buffer) at every survey;
    /// casting its type costs no allocation. (Were `Conforming` not `value`'s type after all, the
    /// value is reflected rather than left out of the fingerprint.)
    @inlinable mutating func visit<Value, Conforming: Surveyable>(_ value: Value, as _: Conforming.Type) {
        if let value = value as? Conforming {
            value.survey(&self)
        } else {
            reflect(value)
        }
    }

    /// Marks which case of an enum follows (a literal: its address is the mark).
    @inlinable public mutating func tag(_ name: StaticString) {
        fingerprint.mix(name.hasPointerRepresentation ? UInt64(UInt(bitPattern: name.utf8Start)) : UInt64(name.unicodeScalar.value))
    }

    /// Surveys plain data that holds no request id, token or instant (emails, names, counts).
    @inlinable public mutating func plain<T: Hashable>(_ value: T) {
        var hasher = Hasher()
        hasher.combine(value)
        fingerprint.mix(UInt64(bitPattern: Int64(hasher.finalize())))
    }

    /// Surveys plain text (an email, a name, a password): its bytes, eight at a time, straight
    /// into the fingerprint — no hasher to seed and finish for every string.
    @inlinable public mutating func plain(_ value: String) {
        var value = value
        value.withUTF8 { fingerprint.mix(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Surveys optional plain text.
    @inlinable public mutating func plain(_ value: String?) {
        if let value {
            plain(value)
        } else {
            fingerprint.mix(0x4E4F_4E45_0000_0000)
        }
    }

    /// Surveys a flag (no hasher to seed and finish).
    @inlinable public mutating func plain(_ value: Bool) { fingerprint.mix(value ? 0x424F_4F4C_0000_0001 : 0x424F_4F4C_0000_0000) }

    /// Surveys a small number.
    @inlinable public mutating func number(_ value: Int) { fingerprint.mix(UInt64(bitPattern: Int64(value))) }

    /// Surveys a request id: renamed in order of first appearance.
    @inlinable public mutating func request(_ id: RequestID) {
        if exact { return fingerprint.mix(0x5245_5100_0000_0000 ^ id.rawValue) }
        if region == .state { Self.append(id, to: &referencedRequests) }
        fingerprint.mix(0x5245_5100_0000_0000 | UInt64(Self.position(of: id.rawValue, in: &requestNames)))
    }

    /// Surveys an intent id: renamed in order of first appearance, as request ids are (the
    /// sender's counter is left out, so intents that differ only by their ids are one state).
    @inlinable public mutating func intent(_ id: IntentID) {
        if exact { return fingerprint.mix(0x494E_5400_0000_0000 ^ id.rawValue) }
        fingerprint.mix(0x494E_5400_0000_0000 | UInt64(Self.position(of: id.rawValue, in: &intentNames)))
    }

    /// Surveys an instant: relative to now, and "long ago" beyond the horizon.
    @inlinable public mutating func instant(_ instant: Instant) {
        if exact { return fingerprint.mix(0x494E_5354_0000_0000 ^ UInt64(bitPattern: instant.milliseconds)) }
        let relative = max(instant.milliseconds &- now, region == .history ? historyLongAgo : longAgo)
        fingerprint.mix(0x494E_5354_0000_0000 ^ UInt64(bitPattern: relative))
    }

    /// Surveys a secret: a server-issued token is renamed in order of first appearance; what the
    /// user typed (password, code) is plain data.
    @inlinable public mutating func secret<Kind>(_ secret: Secret<Kind>) {
        let value = secret.reveal()
        if exact { return plain(value) }
        guard Kind.isIssuedByServer else {
            Self.append(value, to: &secrets)
            plain(value)
            return
        }
        fingerprint.mix(name(of: secret))
    }

    /// A server-issued token's name (its position in order of first appearance), noting the facts
    /// a token gives: a secret, a live refresh token, the highest symbolic index.
    @inlinable mutating func name<Kind>(of secret: Secret<Kind>) -> UInt64 {
        let value = secret.reveal()
        Self.append(value, to: &secrets)
        if Kind.self == SecretKinds.RefreshToken.self {
            if region != .history { Self.append(value, to: &liveRefreshTokens) }
            symbols.note(refresh: value)
        } else {
            symbols.note(access: value)
        }
        return 0x544F_4B00_0000_0000 | UInt64(Self.position(of: value, in: &tokenNames))
    }

    // MARK: Lists no behaviour reads the order of

    /// Surveys a list no behaviour reads the order of (the requests in flight, a session's pending
    /// calls). Under ``Reduction/symmetric`` it is a set: its elements are surveyed in the order of
    /// what each holds, ids and tokens met for the first time named alike in every element, so
    /// that worlds that hold the same elements in another order, or under other ids, are one state.
    @inlinable mutating func visit<Element: Surveyable>(unordered elements: [Element]) {
        guard unordered, !exact, elements.count > 1 else { return visit(elements) }
        var keyed: [(key: Fingerprint, position: Int)] = []
        keyed.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            var content = self  // Each element as it would be surveyed first.
            content.fingerprint = Fingerprint()
            content.visit(element)
            keyed.append((content.fingerprint, position))
        }
        keyed.sort { ($0.key.a, $0.key.b, $0.position) < ($1.key.a, $1.key.b, $1.position) }
        number(elements.count)
        for element in keyed { visit(elements[element.position]) }
    }

    /// Surveys the requests in flight, as a set (``visit(unordered:)``). Under
    /// ``Reduction/symmetric`` a request the state no longer refers to, with no refresh token in
    /// it, is surveyed as what can answer it (``ReplyCatalogue/AnswerKey/Kind``): no behaviour
    /// reads more of it. The lifecycle is told only the answer and the id, which it no longer
    /// knows; the history learns only from answers to requests the state refers to; and an id
    /// the state has let go of never comes back (ids are compared for equality, the counter is
    /// left out). A request with a refresh token is surveyed in full: the invariants on refreshes
    /// in flight and on logged-out sessions read the token of every request in flight.
    @inlinable mutating func visit(network: [Exchange]) {
        guard network.contains(where: answeredOnly) else { return visit(unordered: network) }
        visit(unordered: network.map { InFlight(exchange: $0, answeredOnly: answeredOnly($0)) })
    }

    /// Whether `exchange` is surveyed as what can answer it (see ``visit(network:)``).
    @inlinable func answeredOnly(_ exchange: Exchange) -> Bool {
        unordered && !exact && isLetGo(exchange)
    }

    /// Whether the state has let go of `exchange` and no refresh token is in it: no behaviour
    /// reads more of it than what can answer it, and any answer to it that changes anything
    /// breaks "stale answers change nothing" (``visit(network:)``, ``History/inFlightAtSignOut``).
    @inlinable func isLetGo(_ exchange: Exchange) -> Bool {
        exchange.request.refreshToken == nil && !referencedRequests.contains(exchange.id)
    }

    /// Notes the secrets and token indices of the requests ``visit(network:)`` surveyed as what
    /// can answer them, leaving the fingerprint as it was: their tokens are still in the world
    /// (a new token must not take one's name, a leak check still looks for them).
    @inlinable mutating func noteAnsweredOnly(_ network: [Exchange]) {
        guard network.contains(where: answeredOnly) else { return }
        let finished = fingerprint
        walking = .environment
        for exchange in network where answeredOnly(exchange) { visit(exchange.request) }
        fingerprint = finished
    }

    /// Surveys request ids no behaviour reads the order of (``Reduction/symmetric``: as a set).
    @inlinable mutating func visit(requestSet ids: [RequestID]) {
        guard unordered, !exact, ids.count > 1 else { return visit(ids) }
        number(ids.count)
        for name in ids.map({ Self.position(of: $0.rawValue, in: &requestNames) }).sorted() {
            fingerprint.mix(0x5245_5100_0000_0000 | UInt64(name))
        }
    }

    /// Surveys intent ids no behaviour reads the order of (``Reduction/symmetric``: as a set).
    @inlinable mutating func visit(intentSet ids: [IntentID]) {
        guard unordered, !exact, ids.count > 1 else { return visit(ids) }
        number(ids.count)
        for name in ids.map({ Self.position(of: $0.rawValue, in: &intentNames) }).sorted() {
            fingerprint.mix(0x494E_5400_0000_0000 | UInt64(name))
        }
    }

    /// Surveys tokens no behaviour reads the order of (``Reduction/symmetric``: as a set).
    @inlinable mutating func visit<Kind>(tokenSet tokens: [Secret<Kind>]) {
        guard unordered, !exact, tokens.count > 1 else { return visit(tokens) }
        number(tokens.count)
        for name in tokens.map({ name(of: $0) }).sorted() { fingerprint.mix(name) }
    }

    /// The position of `value` in order of first appearance, appending it when new.
    @inlinable static func position<T: Equatable>(of value: T, in names: inout [T]) -> Int {
        if let known = names.firstIndex(of: value) { return known }
        append(value, to: &names)
        return names.count - 1
    }

    /// Appends `value`. A list is made only when a world holds such values, and then with room
    /// for eight (what a world rarely exceeds), not grown one by one.
    @inlinable static func append<T>(_ value: T, to list: inout [T]) {
        if list.capacity == 0 { list.reserveCapacity(8) }
        list.append(value)
    }

    /// Remembers the first session phase met in the state (what session invariants read).
    @inlinable public mutating func noteSession(_ phase: SessionLifecycle.Phase) {
        if region == .state, session == nil { session = phase }
    }

    // MARK: Reflection, for types that do not conform

    /// Surveys any value: through ``Surveyable`` when it conforms, otherwise through `Mirror`.
    @inlinable public mutating func reflect(_ value: Any) {
        if let surveyable = value as? any Surveyable {
            surveyable.survey(&self)
            return
        }
        if value is FlowContext { return }  // Counters are symmetric: only their relation to ids in use matters.
        if let hashable = value as? AnyHashable, Mirror(reflecting: value).children.isEmpty {
            plain(hashable)
            return
        }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .enum {
            plain(mirror.children.first?.label ?? String(describing: value))
        }
        number(mirror.children.count)
        for child in mirror.children { reflect(child.value) }
    }
}

/// The highest index of the symbolic tokens (`tok-at-3`, `tok-rt-2`) in a world, so that a reply
/// can name fresh ones.
public struct SymbolCounts: Hashable, Sendable {
    /// The highest access-token index.
    public var access = 0
    /// The highest refresh-token index.
    public var refresh = 0

    @inlinable mutating func note(access value: String) { access = max(access, Symbols.index(value, kind: "at") ?? 0) }
    @inlinable mutating func note(refresh value: String) { refresh = max(refresh, Symbols.index(value, kind: "rt") ?? 0) }
}

/// Symbolic token names: `tok-at-1`, `tok-rt-2`… (distinctive, so a leak check cannot mistake
/// ordinary text for a token).
@usableFromInline enum Symbols {
    @inlinable static func name(_ kind: String, _ index: Int) -> String { "tok-\(kind)-\(index)" }

    /// The index of a symbolic name of `kind` (`at`, `rt`), without splitting or building strings.
    @inlinable static func index(_ name: String, kind: StaticString) -> Int? {
        // A native string's bytes are read in place (the survey asks for every token of every
        // world); any other string is read through a copy of its UTF-8 view.
        if let parsed = name.utf8.withContiguousStorageIfAvailable({ index(bytes: $0, kind: kind) }) { return parsed }
        return index(bytes: Array(name.utf8), kind: kind)
    }

    /// ``index(_:kind:)`` over the name's bytes: `tok-`, the two-letter kind, `-`, then digits only.
    @inlinable static func index<Bytes: RandomAccessCollection<UInt8>>(bytes: Bytes, kind: StaticString) -> Int? where Bytes.Index == Int {
        guard bytes.count > 7 else { return nil }
        let s = bytes.startIndex
        guard bytes[s] == 0x74, bytes[s + 1] == 0x6F, bytes[s + 2] == 0x6B, bytes[s + 3] == 0x2D,
            bytes[s + 4] == kind.utf8Start[0], bytes[s + 5] == kind.utf8Start[1], bytes[s + 6] == 0x2D
        else { return nil }
        var index = 0
        for byte in bytes.dropFirst(7) {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            index = index &* 10 &+ Int(byte &- 0x30)
        }
        return index
    }
}

/// A case of a phase type met during exploration.
public struct PhaseCase: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The phase type's name.
    public var type: String
    /// The case.
    public var name: String

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(type: String, name: String) {
        self.type = type
        self.name = name
    }
    /// Orders by type, then case.
    @inlinable public static func < (lhs: PhaseCase, rhs: PhaseCase) -> Bool { (lhs.type, lhs.name) < (rhs.type, rhs.name) }
    /// `Type.case`.
    @inlinable public var description: String { "\(type).\(name)" }
}

/// A type's name without the module: `SessionLifecycle.Phase`, `Either<…>`.
@inlinable func typeName(_ type: Any.Type) -> String {
    String(reflecting: type).split(separator: "AuthCore.", omittingEmptySubsequences: false).joined()
}

extension Array {
    /// Empties a short list, keeping its storage: element by element from the end, which costs
    /// a few instructions each where `removeAll(keepingCapacity:)` goes through the general
    /// `replaceSubrange`.
    @inlinable mutating func empty() {
        while !isEmpty { removeLast() }
    }
}
