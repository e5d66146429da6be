/// The checks of one kind of invariant (state or step), in catalogue order, each with its
/// position in the catalogue, folded once into a chain of closures.
///
/// Why a chain and not a loop over an array: a closure read out of an array is copied before it
/// is called, a retain and a release of its context, and a fresh step runs some forty checks.
/// Each link of the chain calls the next, a constant it captured, without copying it.
@usableFromInline struct CheckChain<Value>: Sendable {
    /// The first check at a position past the second argument that fails on the first, and its
    /// message.
    @usableFromInline let first: @Sendable (Value, Int) -> (Int, String)?

    /// `checks`, each with its position in the catalogue, in increasing order.
    @inlinable init(_ checks: [(Int, @Sendable (Value) -> String?)]) {
        var chain: @Sendable (Value, Int) -> (Int, String)? = { _, _ in nil }
        for (position, check) in checks.reversed() {
            let rest = chain
            chain = { value, after in
                if position > after, let message = check(value) { return (position, message) }
                return rest(value, after)
            }
        }
        first = chain
    }

    /// The first check at a position past `after` that fails on `value`, and its message.
    @inlinable func firstFailure(on value: Value, after: Int = -1) -> (Int, String)? {
        first(value, after)
    }
}
