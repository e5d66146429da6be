/// The summary of one figure's repetitions: the median and the spread around it.
///
/// Benchmarks on a shared machine are noisy; a single run says little. Every figure `authflow
/// bench` prints is the median of several samples, with the minimum, maximum and quartiles so a
/// reader sees how much to trust it.
public struct Spread: Hashable, Sendable {
    /// The samples, sorted ascending.
    public let sorted: [Double]

    /// Summarises `samples` (at least one).
    public init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "a figure needs at least one sample")
        sorted = samples.sorted()
    }

    /// How many samples.
    public var count: Int { sorted.count }
    /// The smallest sample.
    public var min: Double { sorted[0] }
    /// The largest sample.
    public var max: Double { sorted[sorted.count - 1] }
    /// The median: the middle sample, or the mean of the two middle ones.
    public var median: Double { Self.quantile(sorted, 0.5) }
    /// The first quartile (25th percentile, linear interpolation between samples).
    public var lowerQuartile: Double { Self.quantile(sorted, 0.25) }
    /// The third quartile (75th percentile, linear interpolation between samples).
    public var upperQuartile: Double { Self.quantile(sorted, 0.75) }
    /// The interquartile range.
    public var interquartileRange: Double { upperQuartile - lowerQuartile }

    /// The `q`-quantile (0…1) of ascending `values`, interpolating linearly between neighbours
    /// (the "R-7" definition, as spreadsheets and NumPy use by default).
    public static func quantile(_ values: [Double], _ q: Double) -> Double {
        precondition(!values.isEmpty)
        let position = Double(values.count - 1) * Swift.min(Swift.max(q, 0), 1)
        let lower = Int(position.rounded(.down))
        let upper = Swift.min(lower + 1, values.count - 1)
        let fraction = position - Double(lower)
        return values[lower] + (values[upper] - values[lower]) * fraction
    }

    /// The median of `samples` (at least one).
    public static func median(_ samples: [Double]) -> Double { Spread(samples).median }

    /// Every sample mapped through `transform` (for example seconds per step → steps per second).
    /// A decreasing transform swaps min and max, which `init` sorts again.
    public func map(_ transform: (Double) -> Double) -> Spread { Spread(sorted.map(transform)) }
}

/// How `authflow bench` writes numbers: grouped thousands, a few significant digits, SI suffixes
/// for rates.
public enum BenchFormat: Sendable {
    /// `1234567` → `1,234,567`.
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return value < 0 ? "-" + out : out
    }

    /// `value` with `decimals` digits after the point (no locale, no Foundation).
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value.magnitude * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(scaled - Double(whole) * scale)
        var text = grouped(whole)
        if decimals > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: Swift.max(0, decimals - digits.count)) + digits
        }
        return (value < 0 && scaled > 0 ? "-" : "") + text
    }

    /// A unit is chosen for the value as it reads once rounded to three significant digits:
    /// 999.6 rounds to 1,000, which the next unit writes `1.00`.
    private static let roundsUp = 0.9995

    /// Three significant digits with an SI suffix: `1234` → `1.23 k`, `20_000_000` → `20.0 M`,
    /// `999_600` → `1.00 M` (not `1,000 k`).
    public static func si(_ value: Double) -> String {
        let magnitude = value.magnitude
        let (scaled, suffix): (Double, String) =
            magnitude >= roundsUp * 1e9
            ? (value / 1e9, " G")
            : magnitude >= roundsUp * 1e6
                ? (value / 1e6, " M")
                : magnitude >= roundsUp * 1e3 ? (value / 1e3, " k") : (value, "")
        return significant(scaled) + suffix
    }

    /// Three significant digits: `123.4` → `123`, `12.34` → `12.3`, `1.234` → `1.23`, `0.01234` →
    /// `0.0123`; `9.996` → `10.0` (not `10.00`).
    public static func significant(_ value: Double) -> String {
        let magnitude = value.magnitude
        if magnitude >= roundsUp * 100 || magnitude == 0 { return fixed(value, 0) }
        if magnitude >= roundsUp * 10 { return fixed(value, 1) }
        if magnitude >= roundsUp { return fixed(value, 2) }
        var decimals = 2
        var probe = magnitude
        while probe < roundsUp && decimals < 12 {
            probe *= 10
            decimals += 1
        }
        return fixed(value, decimals)
    }

    /// A duration in seconds, in the unit that reads best: `0.000_081` → `81.0 µs`,
    /// `0.000_999_7` → `1.00 ms` (not `1,000 µs`).
    public static func duration(_ seconds: Double) -> String {
        let magnitude = seconds.magnitude
        if magnitude >= roundsUp { return significant(seconds) + " s" }
        if magnitude >= roundsUp * 1e-3 { return significant(seconds * 1e3) + " ms" }
        if magnitude >= roundsUp * 1e-6 { return significant(seconds * 1e6) + " µs" }
        return significant(seconds * 1e9) + " ns"
    }

    /// A byte count: `1_500_000` → `1.43 MiB`.
    public static func bytes(_ count: Double) -> String {
        // Binary units: 1,023.9 MiB rounds to 1,024, which reads `1.00 GiB`.
        let upper = 1023.5 / 1024
        if count >= upper * Double(1 << 30) { return significant(count / Double(1 << 30)) + " GiB" }
        if count >= upper * Double(1 << 20) { return significant(count / Double(1 << 20)) + " MiB" }
        if count >= upper * Double(1 << 10) { return significant(count / Double(1 << 10)) + " KiB" }
        return fixed(count, 0) + " B"
    }

    /// Reads back a number this type wrote, with its unit: `9.27 M/s` → 9,270,000, `498 µs` →
    /// 0.000498, `1,000` → 1000, `40.7 MiB` → bytes. Words after the number and its unit are
    /// ignored (`20 M steps/s`, `1 refresh`); `nil` when `text` does not start with a number.
    public static func number(in text: Substring) -> Double? {
        let digits = text.prefix { $0.isNumber || $0 == "." || $0 == "," || $0 == "-" }
        guard let value = Double(String(digits.filter { $0 != "," })) else { return nil }
        let rest = text.dropFirst(digits.count)
        let unit = rest.first == " " ? rest.dropFirst().prefix { $0 != " " && $0 != "/" } : ""
        let scale: Double =
            switch unit {
            case "k": 1e3
            case "M": 1e6
            case "G": 1e9
            case "ns": 1e-9
            case "µs": 1e-6
            case "ms": 1e-3
            case "KiB": 1024
            case "MiB": 1024 * 1024
            case "GiB": 1024 * 1024 * 1024
            default: 1
            }
        return value * scale
    }
}
