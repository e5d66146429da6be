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

    /// A wall-clock instant (from 2000 on) as a UTC date and time, `2026-11-24T13:30:05Z`, as a
    /// person reads it in a log or an error; an earlier one, as the verification models and tests
    /// use, as its offset from the epoch, `t+<seconds>s`, readable in traces.
    public var description: String {
        guard milliseconds >= Self.wallClockFrom else {
            return milliseconds % 1000 == 0 ? "t+\(milliseconds / 1000)s" : "t+\(milliseconds)ms"
        }
        return Self.utc(milliseconds)
    }

    /// 2000-01-01T00:00:00Z: instants from then on are read as dates.
    static let wallClockFrom: Int64 = 946_684_800_000

    /// `milliseconds` since the epoch (not negative) as `YYYY-MM-DDTHH:MM:SS[.mmm]Z`, by the civil
    /// calendar (Howard Hinnant's `civil_from_days`): AuthCore has no calendar of its own.
    static func utc(_ milliseconds: Int64) -> String {
        let days = milliseconds / 86_400_000
        let inDay = milliseconds % 86_400_000
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let seconds = inDay / 1000
        let fraction = inDay % 1000
        let milliText = fraction == 0 ? "" : "." + String(String(fraction + 1000).dropFirst())
        return "\(year)-\(two(month))-\(two(day))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))\(milliText)Z"
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

    /// The two intervals one after the other.
    public static func + (lhs: Interval, rhs: Interval) -> Interval { Interval(milliseconds: lhs.milliseconds &+ rhs.milliseconds) }

    /// The interval `factor` times as long.
    public static func * (lhs: Interval, rhs: Int64) -> Interval { Interval(milliseconds: lhs.milliseconds &* rhs) }

    /// Orders intervals by length.
    public static func < (lhs: Interval, rhs: Interval) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// `<seconds>s`, readable in traces.
    public var description: String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }
}
