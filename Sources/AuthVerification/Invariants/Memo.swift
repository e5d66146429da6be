import AuthCore
import AuthSupport

/// A thread-safe memo from a value to what was computed from it once: invariants use it for what
/// depends on a value alone (its description, whether an intent is a logout), so the explorer's
/// inner loop pays a dictionary lookup instead of a reflection or a string scan.
///
/// Each thread stepping worlds keeps its own part (see ``Worker``): threads that shared one
/// dictionary behind one lock waited on each other at nearly every step. A value may then be
/// computed once per thread, which is what a memo allows.
@usableFromInline final class Memo<Key: Hashable, Value>: Sendable {
    @usableFromInline let parts = WorkerParts { _ in Locked<[Key: Value]>([:]) }

    /// An empty memo.
    @inlinable init() {}

    /// The value for `key`, computed by `compute` the first time (outside the lock, so a
    /// computation may use other memos).
    @inlinable func value(_ key: Key, _ compute: (Key) -> Value) -> Value {
        let values = parts.current
        if let known = values.withLock({ $0[key] }) { return known }
        let computed = compute(key)
        values.withLock { $0[key] = computed }
        return computed
    }
}

/// Secrets seen so far and the descriptions already found clean of them.
///
/// A description can only show a secret that is in the described value or was copied out of the
/// world around it, so each distinct value is scanned once against the secrets known at that
/// time, and again only when new secrets appear. Each thread stepping worlds keeps its own part
/// (see ``Worker``): what a thread scans, it scans against the secrets of the worlds it stepped,
/// which hold every secret a description there can show.
final class LeakScanner<Key: Hashable>: Sendable {
    let parts = WorkerParts { _ in LeakScannerPart<Key>() }

    /// A scanner that knows no secret yet.
    init() {}

    /// See ``LeakScannerPart/learn(_:_:)``.
    func learn(_ world: [String], _ more: [String] = []) { parts.current.learn(world, more) }

    /// See ``LeakScannerPart/leak(_:describe:)``.
    func leak(_ key: Key, describe: (Key) -> (texts: [String], own: [String])) -> Int? {
        parts.current.leak(key, describe: describe)
    }

    /// See ``LeakScannerPart/leak(event:payload:describe:)``.
    func leak(event key: EventKey, payload: () -> Key?, describe: (Key) -> (texts: [String], own: [String])) -> Int? {
        parts.current.leak(event: key, payload: payload, describe: describe)
    }

    /// See ``LeakScannerPart/leak(digest:describe:)``.
    func leak(digest: Fingerprint, describe: () -> (texts: [String], own: [String])) -> Int? {
        parts.current.leak(digest: digest, describe: describe)
    }
}

/// One thread's part of a ``LeakScanner``.
final class LeakScannerPart<Key: Hashable>: @unchecked Sendable {
    // Safe: every access to the stored variables holds `lock`, and no access to one overlaps
    // another to the same variable (`verdict(_:in:describe:)` holds its table while it scans,
    // and the scan reads only the secrets and needles); so the runtime's exclusivity check, made
    // at every access of a class's variable, is left out of them (`@exclusivity(unchecked)`, as
    // `Locked` does). It was about 1.6 % of a fuzz step.
    @exclusivity(unchecked) var secrets: Set<String> = []
    @exclusivity(unchecked) var needles: [[UInt8]] = []
    /// The last few secret lists learned: consecutive calls mostly repeat the same lists.
    @exclusivity(unchecked) var recentLearned: [[String]] = []
    @exclusivity(unchecked) var recentMore: [[String]] = []
    @exclusivity(unchecked) var verdicts: [Key: Verdict] = [:]
    /// Verdicts by event key, by index: the table met last, and the others by serial number.
    @exclusivity(unchecked) var currentSerial: UInt64 = 0
    @exclusivity(unchecked) var currentVerdicts: [Verdict?] = []
    @exclusivity(unchecked) var otherTables: [UInt64: [Verdict?]] = [:]
    @exclusivity(unchecked) var digestVerdicts: [Fingerprint: Verdict] = [:]
    let lock = Locked(())

    /// A part that knows no secret yet.
    init() {}

    /// Learns the secrets (of 4 characters or more) of the worlds around the values to check next.
    func learn(_ world: [String], _ more: [String] = []) {
        lock.withLock { _ in
            // Consecutive calls mostly repeat the same secrets: comparing is cheaper than hashing.
            if !recentLearned.contains(world) {
                add(world)
                Self.remember(world, in: &recentLearned)
            }
            if !recentMore.contains(more) {
                // The secrets `world` holds are known by now: only the others are looked up (mostly
                // none: a step's world shares nearly all its secrets with the world before it).
                add(more, besides: world)
                Self.remember(more, in: &recentMore)
            }
        }
    }

    /// Keeps `secrets` among the last four lists learned.
    static func remember(_ secrets: [String], in recent: inout [[String]]) {
        if recent.count == 4 { recent.removeFirst() }
        recent.append(secrets)
    }

    /// Whether `key`'s description (computed by `describe` when needed) shows any secret known or
    /// any of its own: the length of a leaked secret, never the secret.
    func leak(_ key: Key, describe: (Key) -> (texts: [String], own: [String])) -> Int? {
        lock.withLock { _ in verdict(key, in: &verdicts) { describe(key) } }
    }

    /// ``leak(_:describe:)`` for an event its environment numbered, looked up by its key first;
    /// a key not met yet (each environment numbers afresh) falls back to the payload's own
    /// verdict, so a new exploration or fuzz session of a model describes nothing again.
    func leak(event key: EventKey, payload: () -> Key?, describe: (Key) -> (texts: [String], own: [String])) -> Int? {
        lock.withLock { _ in
            if key.serial != currentSerial {
                // Another table's keys (an exploration, then a fuzz session of the same model).
                if !currentVerdicts.isEmpty { otherTables[currentSerial] = currentVerdicts }
                currentVerdicts = otherTables.removeValue(forKey: key.serial) ?? []
                currentSerial = key.serial
            }
            let index = key.index
            if index < currentVerdicts.count, let verdict = currentVerdicts[index], verdict.known == needles.count { return verdict.leak }
            guard let value = payload() else { return nil }
            let leak = verdict(value, in: &verdicts) { describe(value) }
            if currentVerdicts.count <= index { currentVerdicts += repeatElement(nil, count: index - currentVerdicts.count + 1) }
            currentVerdicts[index] = Verdict(known: needles.count, leak: leak)
            return leak
        }
    }

    /// ``leak(_:describe:)`` for a value known by its digest (``Survey/digest(_:)``).
    func leak(digest: Fingerprint, describe: () -> (texts: [String], own: [String])) -> Int? {
        lock.withLock { _ in verdict(digest, in: &digestVerdicts, describe: describe) }
    }

    /// A value's verdict: the one recorded when no secret was learned since, or a new scan. The
    /// tables apart: an event key's or a digest's copy and comparison are a word's or two.
    func verdict<K: Hashable>(_ key: K, in table: inout [K: Verdict], describe: () -> (texts: [String], own: [String])) -> Int? {
        if let verdict = table[key], verdict.known == needles.count { return verdict.leak }
        let (texts, own) = describe()
        add(own)
        let leak = leak(in: texts)
        table[key] = Verdict(known: needles.count, leak: leak)
        return leak
    }

    /// A scan's result: how many secrets were known, and the length of one that leaked.
    struct Verdict {
        let known: Int
        let leak: Int?

    }

    func leak(in texts: [String]) -> Int? {
        let haystacks = texts.map { Array($0.utf8) }
        return needles.first { needle in haystacks.contains { $0.containsBytes(needle) } }.map(\.count)
    }

    func add(_ values: [String], besides known: [String] = []) {
        for value in values where value.utf8.count >= 4 && !known.contains(value) && !secrets.contains(value) {
            secrets.insert(value)
            needles.append(Array(value.utf8))
        }
    }
}

/// A value whose description the leak checks scan: what an event carries (its time left out, so
/// one intent or answer is scanned once whenever it happens), or an effect that can carry text.
@usableFromInline enum Described<Intent: Hashable>: Hashable {
    case intent(Intent)
    case reply(Reply)
    case launched(StoredCredentials, owed: [OwedRevocation] = [])
    case effect(AuthEffect)

    /// The event's payload, or `nil` for a tick (a time, nothing else).
    init?(_ event: AuthEvent<Intent>) {
        switch event {
        case .intent(let intent, _, _): self = .intent(intent)
        case .reply(_, let reply, _): self = .reply(reply)
        case .launched(let stored, let owed, _): self = .launched(stored, owed: owed)
        case .tick, .withdrawn: return nil
        }
    }

    /// The digest (``Survey/digest(_:)``) of an effect that can carry text, or `nil` for those that
    /// carry none: ids, timers and instants. A request's id is left out (it is a number), so one
    /// request is scanned once whatever its id. Effects are built afresh at every step: a digest
    /// walks one once, where hashing it as a dictionary key walked it, then copied and compared it.
    static func digest(_ effect: AuthEffect) -> Fingerprint? {
        switch effect {
        case .send(_, let request):
            Survey.digest {
                $0.tag("send"); $0.visit(request)
            }
        case .persist(let credentials):
            Survey.digest {
                $0.tag("persist"); $0.visit(credentials)
            }
        case .emit(let outcome):
            Survey.digest {
                $0.tag("emit"); $0.plain(outcome)
            }
        case .finish(_, let completion):
            Survey.digest {
                $0.tag("finish"); $0.plain(completion)
            }
        case .cancel, .clearCredentials, .schedule, .cancelTimer, .closeRealtime, .persistOwedRevocations: nil
        }
    }
}

/// Every secret value inside `value`, found through `Mirror` (for values that are not surveyed:
/// events and effects, once per distinct value).
func secretsInside(_ value: Any) -> [String] {
    if let secret = value as? any AnySecret { return [secret.revealedForVerification()] }
    var found: [String] = []
    for child in Mirror(reflecting: value).children { found += secretsInside(child.value) }
    return found
}

/// What a state's leak check describes: the lifecycle state (by its fingerprint), or the
/// requests in flight and the vault around it.
enum StateLeakKey: Hashable {
    case state(Fingerprint)
    /// The requests in flight and the vault, by their exact digest (``Survey/digest(_:)``):
    /// hashing and comparing the values themselves cost more than walking them once.
    case surroundings(Fingerprint)
}
