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
    /// The payload's index in its table: 0, 1, 2… in numbering order.
    @inlinable var index: Int { Int(truncatingIfNeeded: bits & 0xFFFF_FFFF) }
}

/// The payloads one environment's moves carry, each numbered once.
///
/// Intents come in the lists a model's menu returns; a list met again (menus are built once per
/// world kind and shared) is known by its storage, so its keys cost one lookup per menu, not one
/// hash per intent. Lists are kept alive while remembered, so a storage address is never another
/// list's. A model whose menu builds a new list at every world fills the table's room for lists
/// (`rememberedLists`); its intents then get no key, and per-event memos key on the intent itself
/// as before there were keys (numbering them would only add a lookup).
@usableFromInline final class EventTable<Intent: Hashable & Sendable>: @unchecked Sendable {
    // Safe: every access to the stored variables holds `lock`.
    @usableFromInline let serial: UInt64
    @usableFromInline var indices: [Described<Intent>: UInt32] = [:]
    @usableFromInline var lists: [UInt: (list: [Intent], keys: [EventKey])] = [:]
    /// Storage addresses of lists met once by ``key(of:at:)`` (only a hint: a list is numbered
    /// from its own intents when remembered).
    @usableFromInline var sightings: Set<UInt> = []
    @usableFromInline let lock = Locked(())
    @usableFromInline let rememberedLists: Int
    /// The credentials of the last relaunch numbered, and its key.
    @usableFromInline var lastStored: (credentials: Credentials, key: EventKey)?

    @inlinable init(rememberedLists: Int = 1_024) {
        self.serial = EventTableSerials.shared.next()
        self.rememberedLists = rememberedLists
    }

    /// The key of `payload`.
    @inlinable func key(_ payload: Described<Intent>) -> EventKey {
        lock.withLock { _ in
            // A menu offers a relaunch finding the vault's credentials at every world that holds
            // them: the last ones are compared (one storage, so a few identity checks) rather than
            // hashed whole again.
            if case .launched(.stored(let credentials)) = payload {
                if let last = lastStored, last.credentials == credentials { return last.key }
                let key = locked(payload)
                lastStored = (credentials, key)
                return key
            }
            return locked(payload)
        }
    }

    /// The keys of `intents`, in order, or `nil` for a list not known once the room for lists is full.
    @inlinable func keys(of intents: [Intent]) -> [EventKey]? {
        guard !intents.isEmpty else { return [] }
        let address = intents.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        return lock.withLock { _ in
            if let keys = known(intents, at: address) { return keys }
            return lists.count < rememberedLists ? remember(intents, at: address) : nil
        }
    }

    /// The key of `intents[index]`: from the list's keys when the list is known. A fuzz step
    /// builds one move of a menu, so a list met for the first time has that one intent numbered
    /// alone; a list met again (its storage seen before) is numbered whole and remembered. `nil`
    /// for a list not known once the room for lists is full.
    @inlinable func key(of intents: [Intent], at index: Int) -> EventKey? {
        let address = intents.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        return lock.withLock { _ in
            if let keys = known(intents, at: address) { return keys[index] }
            guard lists.count < rememberedLists else { return nil }
            if sightings.contains(address) { return remember(intents, at: address)[index] }
            if sightings.count >= rememberedLists { sightings.removeAll(keepingCapacity: true) }
            sightings.insert(address)
            return locked(.intent(intents[index]))
        }
    }

    /// The keys of a list remembered at `address`, if it is that list.
    @inlinable func known(_ intents: [Intent], at address: UInt) -> [EventKey]? {
        guard let known = lists[address], known.list.count == intents.count else { return nil }
        return known.keys
    }

    /// Numbers every intent of `intents` and remembers the list, keeping it alive.
    @inlinable func remember(_ intents: [Intent], at address: UInt) -> [EventKey] {
        let keys = intents.map { locked(.intent($0)) }
        lists[address] = (intents, keys)
        return keys
    }

    @inlinable func locked(_ payload: Described<Intent>) -> EventKey {
        let index: UInt32
        if let known = indices[payload] {
            index = known
        } else {
            index = UInt32(indices.count)
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
