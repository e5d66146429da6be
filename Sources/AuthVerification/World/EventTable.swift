import AuthCore
import AuthSupport

/// An event's payload (its intent, answer or launch, not its time) as the environment that built
/// the move numbered it: two moves with one key carry equal payloads.
///
/// What an event's payload alone decides — whether its description shows a secret, whether an
/// intent is a logout — is then looked up by a number, where hashing the payload walked a nested
/// enum at every transition. A key names its table too, so keys from two environments (an
/// exploration and a fuzz session sharing one model's invariants) never mix.
@usableFromInline struct EventKey: Hashable, Sendable {
    /// The table's serial number (high half) and the payload's index in it (low half).
    @usableFromInline let bits: UInt64

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(bits: UInt64) {
        self.bits = bits
    }

    /// The serial number of the table that numbered the payload.
    @inlinable var serial: UInt64 { bits >> 32 }
    /// The payload's index in its table: unique in the table, each thread's part numbering
    /// its own (see ``EventTable``).
    @inlinable var index: Int { Int(truncatingIfNeeded: bits & 0xFFFF_FFFF) }
}

/// The payloads one environment's moves carry, each numbered once.
///
/// Each thread stepping the environment's worlds numbers in its own part of the table (see
/// ``Worker``), so the threads never wait on one lock: part `p` of `n` gives the indices `p`,
/// `p + n`, `p + 2n`… A payload met on two threads may get two keys; a key still names one
/// payload, and the indices of one table never collide, so what is kept by index (a verdict, a
/// label) needs no other number.
@usableFromInline final class EventTable<Intent: Hashable & Sendable>: Sendable {
    @usableFromInline let parts: WorkerParts<EventTablePart<Intent>>

    @inlinable init() {
        let serial = EventTableSerials.shared.next()
        parts = WorkerParts { EventTablePart(serial: serial, part: $0) }
    }

    /// The key of `payload`.
    @inlinable func key(_ payload: Described<Intent>) -> EventKey { parts.current.key(payload) }

    /// The keys of `intents`, in order.
    @inlinable func keys(of intents: [Intent]) -> [EventKey] { parts.current.keys(of: intents) }
}

/// One thread's part of an ``EventTable``.
@usableFromInline final class EventTablePart<Intent: Hashable & Sendable>: @unchecked Sendable {
    // Safe: every access to the stored variables holds `lock`, and no access to one overlaps
    // another to the same variable (`keys(of:)` reads the lists while it numbers intents in
    // `indices`); so the runtime's exclusivity check, made at every access of a class's
    // variable, is left out of them (`@exclusivity(unchecked)`, as `Locked` does).
    @usableFromInline let serial: UInt64
    /// Which part of the table this is: the indices it gives are this modulo ``Worker/slots``.
    @usableFromInline let part: UInt32
    @usableFromInline @exclusivity(unchecked) var indices: [Described<Intent>: UInt32] = [:]
    @usableFromInline let lock = Locked(())
    /// The credentials of the last relaunch numbered, and its key.
    @usableFromInline @exclusivity(unchecked) var lastStored: (credentials: Credentials, key: EventKey)?
    /// Intent lists already numbered, with their keys: see ``keys(of:)``.
    @usableFromInline @exclusivity(unchecked) var intentLists: [(intents: [Intent], keys: [EventKey])] = []
    /// The most intent lists remembered.
    @usableFromInline static var intentListLimit: Int { 64 }

    @inlinable init(serial: UInt64, part: Int) {
        self.serial = serial
        self.part = UInt32(part)
    }

    /// The key of `payload`.
    @inlinable func key(_ payload: Described<Intent>) -> EventKey {
        lock.withLock { _ in
            // A menu offers a relaunch finding the vault's credentials at every world that holds
            // them: the last ones are compared (one storage, so a few identity checks) rather than
            // hashed whole again.
            if case .launched(.stored(let credentials), let owed) = payload, owed.isEmpty {
                if let last = lastStored, last.credentials == credentials { return last.key }
                let key = locked(payload)
                lastStored = (credentials, key)
                return key
            }
            return locked(payload)
        }
    }

    /// The keys of `intents`, in order.
    ///
    /// A model offers the same few lists of intents over and over (one per kind of world), built
    /// from the same values: comparing a list with those met before is cheap, because equal
    /// strings that share their storage compare at once, where hashing a string normalizes it
    /// (slowly, for the non-ASCII inputs the menus offer). Numbering each list afresh took 12 %
    /// of app.subspace's exploration (release); `authflow verify` with this takes 13 % less CPU time.
    @inlinable func keys(of intents: [Intent]) -> [EventKey] {
        lock.withLock { _ in
            if let known = intentLists.first(where: { $0.intents == intents }) {
                return known.keys
            }
            let keys = intents.map { locked(.intent($0)) }
            if intentLists.count < Self.intentListLimit { intentLists.append((intents, keys)) }
            return keys
        }
    }

    @inlinable func locked(_ payload: Described<Intent>) -> EventKey {
        let index: UInt32
        if let known = indices[payload] {
            index = known
        } else {
            index = UInt32(indices.count) * UInt32(Worker.slots) + part
            indices[payload] = index
        }
        return EventKey(bits: serial << 32 | UInt64(index))
    }
}

/// Serial numbers for event tables, unique in the process.
@usableFromInline final class EventTableSerials: Sendable {
    @usableFromInline static let shared = EventTableSerials()
    /// The last serial number given.
    @usableFromInline let last = Locked<UInt64>(0)

    @inlinable func next() -> UInt64 {
        last.withLock { last in
            last += 1
            return last
        }
    }
}
