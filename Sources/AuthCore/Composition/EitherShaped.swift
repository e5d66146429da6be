/// An enum shaped like ``Either``: two cases, each holding one value (`Either` itself,
/// ``AppIntent``, ``AppPhase``). Its `==` and `hash(into:)` are written once, here, through
/// ``cases``, rather than derived.
///
/// Written out and inlinable, unlike the derived ones, so that a module using a concrete nest of
/// these specializes them: the derived `==` switches over a tuple of generic values, which costs a
/// metadata lookup at every level of the nest on every comparison (the explorer compares and
/// hashes these millions of times).
@usableFromInline protocol EitherShaped: Hashable {
    associatedtype First: Hashable & Sendable
    associatedtype Second: Hashable & Sendable
    /// The value, as the first case or the second.
    var cases: Either<First, Second> { get }
}

extension EitherShaped {
    /// Equal when the same case holds equal values.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch lhs.cases {
        case .first(let left):
            guard case .first(let right) = rhs.cases else { return false }
            return left == right
        case .second(let left):
            guard case .second(let right) = rhs.cases else { return false }
            return left == right
        }
    }

    /// The case, then its value.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        switch cases {
        case .first(let value):
            hasher.combine(0 as UInt8)
            hasher.combine(value)
        case .second(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        }
    }
}
