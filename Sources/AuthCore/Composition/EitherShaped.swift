/// An enum shaped like ``Either``: two cases, each holding one value (`Either` itself,
/// ``AppIntent``, ``AppPhase``). Its `==` and `hash(into:)` are written once, here, through
/// ``either(_:_:)``, rather than derived; each type's own `==` and `hash(into:)` call them.
///
/// Written out and inlinable, unlike the derived ones, so that a module using a concrete nest of
/// these specializes them: the derived `==` switches over a tuple of generic values, which costs a
/// metadata lookup at every level of the nest on every comparison (the explorer compares and
/// hashes these millions of times). Each type declares its `==` and `hash(into:)` itself rather
/// than take them from this protocol's extension: a default from a protocol extension is reached
/// through the protocol's witness table wherever the nest is not specialized, about 3% of the
/// explorer's speed on the largest app model.
@usableFromInline protocol EitherShaped: Hashable {
    associatedtype First: Hashable & Sendable
    associatedtype Second: Hashable & Sendable
    /// `first` applied to the value in the first case, `second` to the value in the second. (A
    /// view of the value as an `Either` would copy it at every comparison.)
    func either<Result>(_ first: (First) -> Result, _ second: (Second) -> Result) -> Result
}

extension EitherShaped {
    /// Equal when the same case holds equal values.
    @inlinable
    static func sameCaseAndValue(_ lhs: Self, _ rhs: Self) -> Bool {
        lhs.either(
            { left in rhs.either({ right in left == right }, { _ in false }) },
            { left in rhs.either({ _ in false }, { right in left == right }) })
    }

    /// The case, then its value.
    @inlinable
    func hashCaseAndValue(into hasher: inout Hasher) {
        either(
            { value in
                hasher.combine(0 as UInt8)
                hasher.combine(value)
            },
            { value in
                hasher.combine(1 as UInt8)
                hasher.combine(value)
            })
    }
}
