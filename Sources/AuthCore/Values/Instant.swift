/// A point in time as plain data, in milliseconds since the Unix epoch.
///
/// AuthCore reads no clock: time reaches a reducer only inside events, so the same state and
/// event always give the same result and the explorer can jump straight to each deadline.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: Int64

    /// Creates an instant from milliseconds since the Unix epoch.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// Creates an instant from whole seconds since the Unix epoch.
    public static func seconds(_ seconds: Int64) -> Instant { Instant(milliseconds: seconds * 1000) }

    /// The instant `interval` after this one.
    public static func + (lhs: Instant, rhs: Interval) -> Instant {
        Instant(milliseconds: lhs.milliseconds &+ rhs.milliseconds)
    }

    /// The instant `interval` before this one.
    public static func - (lhs: Instant, rhs: Interval) -> Instant {
        Instant(milliseconds: lhs.milliseconds &- rhs.milliseconds)
    }

    /// The interval from `rhs` to `lhs`.
    public static func - (lhs: Instant, rhs: Instant) -> Interval {
        Interval(milliseconds: lhs.milliseconds &- rhs.milliseconds)
    }

    /// Orders instants chronologically.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// `t+<seconds>s`, readable in traces.
    public var description: String {
        milliseconds % 1000 == 0 ? "t+\(milliseconds / 1000)s" : "t+\(milliseconds)ms"
    }
}

/// A length of time as plain data, in milliseconds.
public struct Interval: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The length in milliseconds.
    public var milliseconds: Int64

    /// Creates an interval of `milliseconds`.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// An interval of whole seconds.
    public static func seconds(_ seconds: Int64) -> Interval { Interval(milliseconds: seconds * 1000) }

    /// The empty interval.
    public static let zero = Interval(milliseconds: 0)

    /// The interval `factor` times as long.
    public static func * (lhs: Interval, rhs: Int64) -> Interval { Interval(milliseconds: lhs.milliseconds &* rhs) }

    /// Orders intervals by length.
    public static func < (lhs: Interval, rhs: Interval) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// `<seconds>s`, readable in traces.
    public var description: String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }
}
