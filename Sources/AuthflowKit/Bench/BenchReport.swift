/// One run of `authflow bench`: the machine, the configuration and every figure, rendered as the
/// terminal table, as JSON (`--json`) and as `BENCHMARKS.md` (`--write`) from the same values, so
/// the three always agree.
public struct BenchReport: Sendable {
    /// Where the figures were measured.
    public var machine: MachineDescription
    /// `quick` or `full`.
    public var configuration: String
    /// When the run started (ISO 8601, UTC).
    public var date: String
    /// Every figure, in section order.
    public var rows: [BenchRow]
    /// Remarks printed under the table (how memory is read, what a capped exploration means).
    public var notes: [String]
    /// How long the whole run took, in seconds.
    public var seconds: Double

    /// Creates a report.
    public init(machine: MachineDescription, configuration: String, date: String, rows: [BenchRow], notes: [String] = [], seconds: Double) {
        self.machine = machine
        self.configuration = configuration
        self.date = date
        self.rows = rows
        self.notes = notes
        self.seconds = seconds
    }

    /// The rows that carry a target.
    public var targetRows: [BenchRow] { rows.filter { $0.target != nil } }

    /// One line per target: the figure, the target and whether it was met.
    public var targetSummary: [String] {
        targetRows.map { row in
            let verdict = row.met == true ? "met" : "NOT met"
            return "\(verdict): \(row.section.title) \(row.figure) — \(row.formattedMedian) (target \(row.target!))"
        }
    }

    // MARK: Rendering

    static let header = ["figure", "median", "spread (min–max)", "n", "target", "result", "detail"]

    /// The cells of one row, in ``header`` order.
    static func cells(_ row: BenchRow) -> [String] {
        [
            row.figure, row.formattedMedian, row.formattedSpread, "\(row.spread.count)", row.target ?? "—",
            row.met.map { $0 ? "met" : "not met" } ?? "—", row.details.map(\.text).joined(separator: ", "),
        ]
    }

    /// The sections in order, each with its rows.
    var sections: [(BenchSection, [BenchRow])] {
        BenchSection.allCases.compactMap { section in
            let rows = rows.filter { $0.section == section }
            return rows.isEmpty ? nil : (section, rows)
        }
    }

    /// The terminal table: one table, the sections as headed blocks, then the targets and notes.
    public var text: String {
        let all = [Self.header] + rows.map(Self.cells)
        let widths = Self.header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            var text = zip(cells, widths).map { $0.leftAligned(to: $1) }.joined(separator: "  ")
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        var lines = [
            "authflow bench (\(configuration)) — \(machine.summary)", "\(date), \(BenchFormat.fixed(seconds, 1)) s in all", "",
            line(Self.header), widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "),
        ]
        for (section, rows) in sections {
            lines.append("▸ \(section.title): \(section.explanation)")
            lines += rows.map { line(Self.cells($0)) }
        }
        lines += ["", "Targets:"] + targetSummary.map { "  " + $0 }
        if !notes.isEmpty { lines += ["", "Notes:"] + notes.map { "  - " + $0 } }
        return lines.joined(separator: "\n")
    }

    /// The same figures as JSON.
    public var json: String {
        JSON.object([
            ("configuration", JSON.string(configuration)), ("date", JSON.string(date)), ("machine", machine.json),
            ("seconds", BenchValue.double(seconds).json),
            ("rows", JSON.array(rows.map(\.json))),
            ("targets", JSON.array(targetRows.map { row in
                JSON.object([
                    ("section", JSON.string(row.section.rawValue)), ("figure", JSON.string(row.figure)),
                    ("target", JSON.string(row.target!)), ("median", BenchValue.double(row.spread.median).json),
                    ("met", "\(row.met == true)"),
                ])
            })),
            ("notes", JSON.array(notes.map(JSON.string))),
        ])
    }

    /// `BENCHMARKS.md`: the machine, the date, the table and the targets, as Markdown.
    public var markdown: String {
        func escape(_ cell: String) -> String { cell.replacingAll("|", with: "\\|") }
        var lines = [
            "# Benchmarks", "",
            "Written by `authflow bench\(configuration == "quick" ? " --quick" : "") --write` (\(configuration) configuration); "
                + "do not edit by hand — run the command again. Every figure is the median of `n` repetitions, "
                + "with the smallest and largest; speed is never asserted by a test, only printed here.", "",
            "- Date: \(date)", "- Machine: \(machine.markdown)", "- Run time: \(BenchFormat.fixed(seconds, 1)) s", "",
            "## Targets", "",
        ]
        lines += targetSummary.map { "- " + $0 }
        lines += ["", "## Figures", ""]
        for (section, rows) in sections {
            lines += ["### \(section.title)", "", section.explanation, ""]
            lines.append("| " + Self.header.joined(separator: " | ") + " |")
            lines.append("|" + Self.header.map { _ in "---" }.joined(separator: "|") + "|")
            lines += rows.map { "| " + Self.cells($0).map(escape).joined(separator: " | ") + " |" }
            lines.append("")
        }
        if !notes.isEmpty { lines += ["## Notes", ""] + notes.map { "- " + $0 } + [""] }
        lines += ["## The run as printed", "", "```text", text, "```", ""]
        return lines.joined(separator: "\n")
    }
}

/// The parts of the report, in print order.
public enum BenchSection: String, CaseIterable, Hashable, Sendable {
    /// Reducer steps per second.
    case reducer
    /// Exhaustive exploration of the shipped models.
    case explorer
    /// Exploration of the large composed model.
    case largeModel
    /// Exploration cost as concurrent callers grow.
    case growth
    /// Seeded random walks with every invariant.
    case fuzzer
    /// The planted bug: fuzzer shrinking vs explorer's shortest trace.
    case plantedBug
    /// The runner's overhead over a bare URLSession request.
    case runnerOverhead
    /// Concurrent expired calls and the one refresh.
    case singleFlight

    /// A short title.
    public var title: String {
        switch self {
        case .reducer: "reducer"
        case .explorer: "explorer"
        case .largeModel: "large model"
        case .growth: "growth"
        case .fuzzer: "fuzzer"
        case .plantedBug: "planted bug"
        case .runnerOverhead: "runner overhead"
        case .singleFlight: "single-flight"
        }
    }

    /// What the section measures and how.
    public var explanation: String {
        switch self {
        case .reducer:
            "reduce() steps per second on a precomputed seeded random event stream (recorded from the model's own random walks; only reduce is timed)"
        case .explorer:
            "distinct states per second of each shipped model's exploration (to closure unless the state cap shows)"
        case .largeModel:
            "the session (rotating refresh) composed with several concurrent protected callers: distinct states per second on a large space"
        case .growth:
            "exploration time and peak memory as the number of concurrent protected callers grows"
        case .fuzzer:
            "checked events per second, every invariant checked at every step"
        case .plantedBug:
            "a session that drops the persist of a rotated pair: time to replay and shrink the failing walk, and the trace lengths"
        case .runnerOverhead:
            "one protected request through AuthRunner.authorized vs the same request over the bare URLSessionTransport, interleaved A/B on the same loopback server"
        case .singleFlight:
            "N concurrent protected calls meeting an expired access token: refreshes the server saw and wall time until all are answered"
        }
    }
}

/// A value in a row's details, kept typed for JSON.
public enum BenchValue: Hashable, Sendable {
    /// A whole number.
    case int(Int)
    /// A real number.
    case double(Double)
    /// Text.
    case text(String)
    /// Yes or no.
    case bool(Bool)

    /// The value as JSON.
    public var json: String {
        switch self {
        case .int(let value): "\(value)"
        case .double(let value): value.isFinite ? "\(value)" : "null"
        case .text(let value): JSON.string(value)
        case .bool(let value): "\(value)"
        }
    }
}

/// One detail of a row: a key and typed value for JSON, and the text the table shows.
public struct BenchDetail: Hashable, Sendable {
    /// The JSON key.
    public var key: String
    /// The JSON value.
    public var value: BenchValue
    /// What the table shows.
    public var text: String

    /// Creates a detail.
    public init(_ key: String, _ value: BenchValue, _ text: String) {
        self.key = key
        self.value = value
        self.text = text
    }
}

/// How a row's numbers read.
public enum BenchUnit: String, Hashable, Sendable {
    /// Things per second (`1.23 M/s`).
    case perSecond
    /// Seconds (`81.0 µs`).
    case seconds
    /// A dimensionless ratio (`1.031`).
    case ratio
    /// Bytes (`1.20 MiB`).
    case bytes
    /// A count (`29,846`).
    case count

    /// `value` in this unit.
    public func format(_ value: Double) -> String {
        switch self {
        case .perSecond: BenchFormat.si(value) + "/s"
        case .seconds: BenchFormat.duration(value)
        case .ratio: BenchFormat.fixed(value, 3)
        case .bytes: BenchFormat.bytes(value)
        case .count: BenchFormat.grouped(Int(value.rounded()))
        }
    }
}

/// One figure: what was measured, its samples, its target if it has one, and details.
public struct BenchRow: Sendable {
    /// The part of the report.
    public var section: BenchSection
    /// What was measured, e.g. `session (rotating refresh) steps/s`.
    public var figure: String
    /// How the numbers read.
    public var unit: BenchUnit
    /// The samples.
    public var spread: Spread
    /// The target, as text (`≥ 20 M steps/s`), if the issues set one.
    public var target: String?
    /// Whether the target was met (`nil` without a target).
    public var met: Bool?
    /// Further figures of the same measurement.
    public var details: [BenchDetail]

    /// Creates a row.
    public init(
        _ section: BenchSection, _ figure: String, unit: BenchUnit, spread: Spread, target: String? = nil, met: Bool? = nil,
        details: [BenchDetail] = []
    ) {
        self.section = section
        self.figure = figure
        self.unit = unit
        self.spread = spread
        self.target = target
        self.met = met
        self.details = details
    }

    /// The median in the row's unit.
    public var formattedMedian: String { unit.format(spread.median) }
    /// `min–max` in the row's unit.
    public var formattedSpread: String {
        spread.count == 1 ? "(one run)" : unit.format(spread.min) + " – " + unit.format(spread.max)
    }

    /// The row as JSON: the unit, median, quartiles, extremes and samples, target and details.
    public var json: String {
        JSON.object([
            ("section", JSON.string(section.rawValue)), ("figure", JSON.string(figure)), ("unit", JSON.string(unit.rawValue)),
            ("median", BenchValue.double(spread.median).json), ("min", BenchValue.double(spread.min).json),
            ("max", BenchValue.double(spread.max).json), ("q1", BenchValue.double(spread.lowerQuartile).json),
            ("q3", BenchValue.double(spread.upperQuartile).json),
            ("samples", JSON.array(spread.sorted.map { BenchValue.double($0).json })),
            ("target", target.map(JSON.string) ?? "null"), ("met", met.map { "\($0)" } ?? "null"),
            ("details", JSON.object(details.map { ($0.key, $0.value.json) })),
        ])
    }
}

extension String {
    /// Every occurrence of `target` replaced by `replacement` (no Foundation).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self {
            if character == target { out += replacement } else { out.append(character) }
        }
        return out
    }
}
