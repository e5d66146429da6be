import AuthSupport
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

    /// The command that produces this report (`authflow bench --quick`).
    public var command: String { "authflow bench" + (configuration == "full" ? "" : " --\(configuration)") }

    // MARK: The table

    /// The table's columns.
    public static let header = ["figure", "median", "spread (min – max)", "n", "target", "result", "detail"]

    /// The sections in print order, each with its rows.
    var sections: [(section: BenchSection, rows: [BenchRow])] {
        BenchSection.allCases.compactMap { section in
            let rows = rows.filter { $0.section == section }
            return rows.isEmpty ? nil : (section, rows)
        }
    }

    /// The table as blocks of cells: each section's heading, then its rows' cells in ``header`` order.
    public var blocks: [BenchTable.Block] {
        sections.map { BenchTable.Block(heading: $0.section.heading, rows: $0.rows.map(\.cells)) }
    }

    /// The targets as summary lines: one per target, rows that share a target (every fuzzed
    /// model, every N of the single-flight) summed up in one line.
    public var targetSummary: [String] { BenchTable.targetSummary(blocks) }

    /// What `authflow bench` prints without `--wide`: ``text`` within ``BenchTable/narrowWidth``
    /// columns, each figure's details on lines of their own under its section's rows, and the
    /// long lines (headings, notes) wrapped.
    public var narrowText: String {
        let width = BenchTable.narrowWidth
        var lines = BenchTable.wrap("\(command) — \(machine.summary)", width: width)
        lines += BenchTable.wrap(
            "\(date), \(BenchFormat.fixed(seconds, 1)) s in all; each figure is the median of n repetitions, with the smallest and largest",
            width: width)
        lines.append("")
        lines += BenchTable.renderNarrow(blocks)
        lines += ["", "Targets:"] + targetSummary.flatMap { BenchTable.wrap($0, width: width, indent: "  ") }
        if !notes.isEmpty {
            lines += ["", "Notes:"] + notes.flatMap { BenchTable.wrap($0, width: width, indent: "  - ", continuation: "    ") }
        }
        return lines.joined(separator: "\n")
    }

    /// What `authflow bench --wide` prints, and `BENCHMARKS.md` holds: a title with the machine,
    /// the one table (a figure's details in its last column), the targets and the notes.
    public var text: String {
        var lines = [
            "\(command) — \(machine.summary)",
            "\(date), \(BenchFormat.fixed(seconds, 1)) s in all; each figure is the median of n repetitions, with the smallest and largest",
            "",
        ]
        lines += BenchTable.render(blocks)
        lines += ["", "Targets:"] + targetSummary.map { "  " + $0 }
        if !notes.isEmpty { lines += ["", "Notes:"] + notes.map { "  - " + $0 } }
        return lines.joined(separator: "\n")
    }

    /// The same figures as JSON: the machine, every row with its samples, the targets and notes.
    public var json: String {
        JSON.object([
            ("command", JSON.string(command)), ("configuration", JSON.string(configuration)), ("date", JSON.string(date)),
            ("machine", machine.json), ("seconds", BenchValue.double(seconds).json),
            ("rows", JSON.array(rows.map(\.json))),
            (
                "targets",
                JSON.array(
                    rows.filter { $0.target != nil }.map { row in
                        JSON.object([
                            ("section", JSON.string(row.section.rawValue)), ("figure", JSON.string(row.figure)),
                            ("target", JSON.string(row.target!.text)), ("median", BenchValue.double(row.spread.median).json),
                            ("met", "\(row.met == true)"),
                        ])
                    })
            ),
            ("notes", JSON.array(notes.map(JSON.string))),
        ])
    }

    /// `BENCHMARKS.md`: where and when, then the text the run printed, verbatim.
    public var markdown: String {
        BenchmarksFile.render(preamble: markdownPreamble, printed: text)
    }

    /// What `--write` leaves in `BENCHMARKS.md` after this run of `sections`, over the file's
    /// `existing` text (`nil` when there is none).
    ///
    /// A run of every section writes the whole file, keeping from `existing` the composition rows
    /// of the other build (a release run keeps the debug build's) when they were measured on this
    /// machine. A run of the composition alone (`--only composition`) replaces its own build's
    /// composition rows in `existing` and leaves every other figure as it was: that is how a
    /// debug build's figures (what `swift test` takes) stand beside the release run's. Any other
    /// choice of sections is refused, as is a composition run over a file from another machine.
    public func written(sections: Set<BenchSection>, over existing: String?) throws(BenchWriteProblem) -> String {
        let parts = try Self.writable(sections: sections, over: existing, on: machine)
        if sections == Set(BenchSection.allCases) {
            let other = Bench.otherBuild
            guard let parts else { return markdown }
            let carried = parts.rows(of: .composition).filter { Bench.isFigure($0[0], builtIn: other) }
            guard !carried.isEmpty else { return markdown }
            let line = parts.preamble.first { $0.hasPrefix(Self.compositionLinePrefix(other)) }
            return BenchmarksFile.replacingRows(of: .composition, build: other, by: carried, preambleLine: line, in: markdown) ?? markdown
        }
        let build = Bench.build
        let rows = self.rows.filter { $0.section == .composition }.map(\.cells)
        let line =
            "\(Self.compositionLinePrefix(build)) \(date), `swift run\(build == "release" ? " -c release" : "") \(command) --only composition --write`, "
            + "\(BenchFormat.fixed(seconds, 1)) s, on \(machine.os)"
        let note = notes.first { $0.hasPrefix("\(BenchSection.composition.title): ") }
        guard let existing,
            let file = BenchmarksFile.replacingRows(of: .composition, build: build, by: rows, preambleLine: line, note: note, in: existing)
        else {
            throw BenchWriteProblem(description: "BENCHMARKS.md has no section \(BenchSection.composition.title) to put the rows in")
        }
        return file
    }

    /// What `--write` of `sections` over `existing` can build on, judged before any measuring: the
    /// file's parts when it is a `BENCHMARKS.md` measured on `machine` (``MachineDescription/measured(_:)``),
    /// else `nil`. Refused: any choice of sections but all of them or the composition alone, and a
    /// composition run with no such file to put its rows in.
    public static func writable(
        sections: Set<BenchSection>, over existing: String?, on machine: MachineDescription
    ) throws(BenchWriteProblem) -> BenchmarksFile.Parts? {
        let parts = existing.flatMap(BenchmarksFile.parse)
        let measuredHere = parts.map { machine.measured($0.preamble) } ?? false
        if sections == Set(BenchSection.allCases) { return measuredHere ? parts : nil }
        guard sections == [.composition] else {
            throw BenchWriteProblem(
                description: "bench --write records every section, or with --only composition that section's rows of this build alone")
        }
        guard let parts else {
            throw BenchWriteProblem(
                description: "bench --only composition --write puts its rows into a BENCHMARKS.md a whole run wrote, and there is none here")
        }
        guard measuredHere else {
            let named = parts.preamble.filter { $0.hasPrefix("- Machine") || $0.hasPrefix("- Swift") }
            throw BenchWriteProblem(
                description:
                    "BENCHMARKS.md was measured on another machine or Swift (\(named.joined(separator: "; "))): run the whole bench here first "
                    + "(swift run -c release authflow bench --quick --write)")
        }
        return parts
    }

    /// The start of the preamble line that dates one build's composition rows.
    static func compositionLinePrefix(_ build: String) -> String { "- Composition rows of the \(build) build:" }

    /// The lines above the printed text in `BENCHMARKS.md`.
    var markdownPreamble: [String] {
        [
            "Written by `swift run -c release \(command) --write`; do not edit by hand, run the command again "
                + "(a test re-renders the table below and fails on a hand edit). Performance is never asserted by a test: "
                + "these figures are measured and printed, once, on the machine below.",
            "",
            machine.preambleLine,
            "- OS: \(machine.os)",
            "- Swift: \(machine.swift), \(Bench.build) build",
            "- Date: \(date)",
            "- Configuration: \(configuration), \(BenchFormat.fixed(seconds, 1)) s in all",
        ]
    }
}

/// Why `authflow bench --write` wrote nothing.
public struct BenchWriteProblem: Error, CustomStringConvertible, Sendable {
    /// What to do instead.
    public var description: String
}

/// The parts of the report, in print order.
public enum BenchSection: String, CaseIterable, Hashable, Sendable {
    /// Reducer steps per second.
    case reducer
    /// Exploration of each shipped model.
    case explorer
    /// Exploration of the large composed model.
    case largeModel
    /// Exploration cost as concurrent callers grow.
    case growth
    /// Each app model's time to closure at growing bounds.
    case closure
    /// A user's own composition, its model derived, at the README's bounds and at full depth.
    case composition
    /// Seeded random walks with every invariant.
    case fuzzer
    /// The planted bug: shrinking vs the explorer's shortest trace.
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
        case .closure: "closure"
        case .composition: "your composition"
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
            "reduce() steps/s on a long seeded random event stream, recorded first from the model's own walks; only reduce is timed"
        case .explorer:
            "distinct states/s of each shipped model's breadth-first exploration (to closure unless capped)"
        case .largeModel:
            "the rotating-refresh session with more concurrent protected callers: the explorer on a large space"
        case .growth:
            "explorer time (and states, memory) as concurrent protected callers grow"
        case .closure:
            "seconds to closure of each app model at 2/1, 4/1, 3/2 and 4/2 requests in flight / answers left over, of every other shipped "
                + "model at 4/2, and of the large model, with the reduction; the states, and the plain search's states and seconds (the reduction factor)"
        case .composition:
            "seconds to closure of a user's own five-flow composition (email registration and sign-in, reset by emailed code that signs in, "
                + "rotating refresh, revocation at logout; not a shipped app), its model derived by Model(of:) with every documented failure, "
                + "at 1/1 and 4/2, optimized and in a debug build as swift test builds (its rows by swift run authflow bench --only composition --write)"
        case .fuzzer:
            "checked events/s of `authflow fuzz`'s default session (200 seeded walks of 400 events): step invariants at every event, state invariants at each world not met before; a move met again follows the transition already stepped and checked (the same walks); beside it, the session stepping every event afresh (`authflow fuzz --no-reuse`) on one thread, against 100× the steps/s of Hypothesis's RuleBasedStateMachine on a rotating-refresh session, timed in the same run where Python has Hypothesis (the section's first row), and on every core (`--threads`)"
        case .plantedBug:
            "a session that drops the persist of a rotated pair: found, shrunk, and the explorer's shortest trace"
        case .runnerOverhead:
            "a protected request through AuthRunner.authorized (A) vs the same request as a bare URLSession data task (B), interleaved A/B, one in-process loopback reference server"
        case .singleFlight:
            "N concurrent protected calls meeting an expired access token: refreshes the server saw, and wall time"
        }
    }

    /// The heading line of the section in the table.
    public var heading: String { "\(headingPrefix) \(explanation)" }

    /// How the section's heading begins, whatever its explanation says (`▸ closure:`).
    public var headingPrefix: String { "▸ \(title):" }
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

/// One detail of a row: a key and typed value for JSON, and the text the table shows (empty: JSON only).
public struct BenchDetail: Hashable, Sendable {
    /// The JSON key.
    public var key: String
    /// The JSON value.
    public var value: BenchValue
    /// What the table shows; empty when the detail is for JSON only.
    public var text: String

    /// Creates a detail.
    public init(_ key: String, _ value: BenchValue, _ text: String = "") {
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

/// A target the issues set for a figure, and how a figure is judged against it.
public struct BenchTarget: Hashable, Sendable {
    /// How the figure must compare with the bound.
    public enum Rule: String, Hashable, Sendable {
        /// The median at least the bound (`≥`).
        case atLeast
        /// The median at most the bound (`≤`).
        case atMost
        /// Every sample equal to the bound (`=`): a count that must hold in every run.
        case exactly

        /// `≥`, `≤` or `=`.
        public var symbol: String {
            switch self {
            case .atLeast: "≥"
            case .atMost: "≤"
            case .exactly: "="
            }
        }
    }

    /// The comparison.
    public var rule: Rule
    /// The bound, in the row's unit (steps per second, a ratio, a count).
    public var bound: Double
    /// How the table writes the bound (`20 M steps/s`), after the rule's symbol.
    public var boundText: String

    /// Creates a target: `BenchTarget(.atLeast, 20e6, "20 M steps/s")`.
    public init(_ rule: Rule, _ bound: Double, _ boundText: String) {
        self.rule = rule
        self.bound = bound
        self.boundText = boundText
    }

    /// `≥ 20 M steps/s`.
    public var text: String { "\(rule.symbol) \(boundText)" }

    /// Whether figures with `median`, smallest `min` and largest `max` meet the target: the
    /// median for `≥` and `≤`, every sample for `=`.
    public func isMet(median: Double, min: Double, max: Double) -> Bool {
        switch rule {
        case .atLeast: median >= bound
        case .atMost: median <= bound
        case .exactly: min == bound && max == bound
        }
    }
}

/// One figure: what was measured, its samples, its target if it has one, and details.
public struct BenchRow: Sendable {
    /// The part of the report.
    public var section: BenchSection
    /// What was measured, e.g. `SessionLifecycle (rotating refresh)`.
    public var figure: String
    /// How the numbers read.
    public var unit: BenchUnit
    /// The samples.
    public var spread: Spread
    /// The target, if the issues set one.
    public var target: BenchTarget?
    /// Further figures of the same measurement.
    public var details: [BenchDetail]

    /// Creates a row.
    public init(
        _ section: BenchSection, _ figure: String, unit: BenchUnit, spread: Spread, target: BenchTarget? = nil, details: [BenchDetail] = []
    ) {
        self.section = section
        self.figure = figure
        self.unit = unit
        self.spread = spread
        self.target = target
        self.details = details
    }

    /// Whether the target is met (`nil` without a target), judged from the figures as printed
    /// (rounded as the table shows them), so a reader checking the table by eye always agrees.
    public var met: Bool? {
        func shown(_ value: Double) -> Double { BenchFormat.number(in: Substring(unit.format(value))) ?? value }
        return target?.isMet(median: shown(spread.median), min: shown(spread.min), max: shown(spread.max))
    }

    /// The median in the row's unit.
    public var formattedMedian: String { unit.format(spread.median) }
    /// `min – max` in the row's unit, or `(one run)`.
    public var formattedSpread: String {
        spread.count == 1 ? BenchTable.oneRun : unit.format(spread.min) + BenchTable.rangeSeparator + unit.format(spread.max)
    }

    /// The row's cells in ``BenchReport/header`` order.
    public var cells: [String] {
        [
            figure, formattedMedian, formattedSpread, "\(spread.count)", target?.text ?? BenchTable.none,
            met.map(BenchTable.verdict) ?? BenchTable.none, details.map(\.text).filter { !$0.isEmpty }.joined(separator: "; "),
        ]
    }

    /// The row as JSON: the unit, median, quartiles, extremes and samples, target and details.
    public var json: String {
        JSON.object([
            ("section", JSON.string(section.rawValue)), ("figure", JSON.string(figure)), ("unit", JSON.string(unit.rawValue)),
            ("median", BenchValue.double(spread.median).json), ("min", BenchValue.double(spread.min).json),
            ("max", BenchValue.double(spread.max).json), ("q1", BenchValue.double(spread.lowerQuartile).json),
            ("q3", BenchValue.double(spread.upperQuartile).json), ("n", "\(spread.count)"),
            ("samples", JSON.array(spread.sorted.map { BenchValue.double($0).json })),
            (
                "target",
                target.map {
                    JSON.object([
                        ("rule", JSON.string($0.rule.rawValue)), ("bound", BenchValue.double($0.bound).json), ("text", JSON.string($0.text)),
                    ])
                } ?? "null"
            ),
            ("met", met.map { "\($0)" } ?? "null"),
            ("details", JSON.object(details.map { ($0.key, $0.value.json) })),
        ])
    }
}

/// The table as text, from cells alone, and read back: `BENCHMARKS.md` is checked by parsing its
/// table and rendering it again.
public enum BenchTable: Sendable {
    /// A section: its heading line and its rows' cells.
    public struct Block: Hashable, Sendable {
        /// `▸ reducer: …`.
        public var heading: String
        /// Each row's cells, in ``BenchReport/header`` order.
        public var rows: [[String]]

        /// Creates a block.
        public init(heading: String, rows: [[String]]) {
            self.heading = heading
            self.rows = rows
        }
    }

    /// The cell of a figure without a target or verdict.
    public static let none = "—"
    /// The spread cell of a figure measured once.
    public static let oneRun = "(one run)"
    /// Between the smallest and largest sample.
    static let rangeSeparator = " – "
    /// Between columns.
    static let gap = "  "

    /// `met` or `NOT met`.
    public static func verdict(_ met: Bool) -> String { met ? "met" : "NOT met" }

    /// The header, a rule, then each block's heading and rows, columns aligned.
    public static func render(_ blocks: [Block]) -> [String] {
        let all = [BenchReport.header] + blocks.flatMap(\.rows)
        let widths = BenchReport.header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            var text = zip(cells, widths).map { $0.leftAligned(to: $1) }.joined(separator: gap)
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        var lines = [line(BenchReport.header), widths.map { String(repeating: "─", count: $0) }.joined(separator: gap)]
        for block in blocks {
            lines.append(block.heading)
            lines += block.rows.map(line)
        }
        return lines
    }

    /// The columns `authflow bench` fits its table in without `--wide`.
    public static let narrowWidth = 120

    /// The table without its detail column, within ``narrowWidth`` columns: the header, a rule,
    /// then each block's heading (wrapped), its rows, and under them each row's details. A figure's
    /// name too long to leave its cells within the width stands on a line of its own, its cells
    /// on the next.
    public static func renderNarrow(_ blocks: [Block]) -> [String] {
        let columns = BenchReport.header.count - 1
        let header = Array(BenchReport.header.prefix(columns))
        let all = [header] + blocks.flatMap(\.rows).map { Array($0.prefix(columns)) }
        var widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        let cellsWidth = widths.dropFirst().reduce(0, +) + gap.count * (widths.count - 1)
        widths[0] = min(widths[0], max(header[0].count, narrowWidth - cellsWidth))
        func line(_ cells: [String]) -> String {
            var text = zip(cells, widths).map { $0.leftAligned(to: $1) }.joined(separator: gap)
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        func rowLines(_ row: [String]) -> [String] {
            let cells = Array(row.prefix(columns))
            guard let name = cells.first, name.count > widths[0] else { return [line(cells)] }
            return [name, line([""] + cells.dropFirst())]
        }
        var lines = [line(header), widths.map { String(repeating: "─", count: $0) }.joined(separator: gap)]
        for block in blocks {
            lines += wrap(block.heading, width: narrowWidth, continuation: "  ")
            lines += block.rows.flatMap(rowLines)
            for row in block.rows where row.count > columns && !row[columns].isEmpty {
                lines += wrap("\(row[0]): \(row[columns])", width: narrowWidth, indent: "    ", continuation: "      ")
            }
        }
        return lines
    }

    /// `text` broken at spaces into lines of at most `width` columns (a word longer than that
    /// stands alone), the first line after `indent`, the others after `continuation`.
    public static func wrap(_ text: String, width: Int, indent: String = "", continuation: String? = nil) -> [String] {
        let next = continuation ?? indent
        var lines: [String] = []
        var current = indent
        var empty = true
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !empty && current.count + 1 + word.count > width {
                lines.append(current)
                current = next
                empty = true
            }
            current += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(current)
        return lines
    }

    /// Reads back the table ``render(_:)`` wrote: `lines` start at its header and end before the
    /// first empty line. `nil` when they are not such a table.
    public static func parse(_ lines: [String]) -> [Block]? {
        guard lines.count >= 2, lines[0].hasPrefix(BenchReport.header[0]) else { return nil }
        // The rule under the header gives each column's width.
        let widths = lines[1].split(separator: " ", omittingEmptySubsequences: true).map(\.count)
        guard widths.count == BenchReport.header.count, lines[1].allSatisfy({ $0 == "─" || $0 == " " }) else { return nil }
        var blocks: [Block] = []
        for line in lines.dropFirst(2) {
            if line.hasPrefix("▸ ") {
                blocks.append(Block(heading: line, rows: []))
                continue
            }
            guard !blocks.isEmpty else { return nil }
            var cells: [String] = []
            var rest = Substring(line)
            for (column, width) in widths.enumerated() {
                let isLast = column == widths.count - 1
                let cell = isLast ? rest : rest.prefix(width)
                var text = String(cell)
                while text.hasSuffix(" ") { text.removeLast() }
                cells.append(text)
                rest = rest.dropFirst(isLast ? rest.count : min(rest.count, width + gap.count))
            }
            blocks[blocks.count - 1].rows.append(cells)
        }
        return blocks
    }

    /// The verdict a row's cells must show, judged from its median and spread cells against its
    /// target cell; `nil` when the row has no target or a cell cannot be read.
    public static func judge(_ cells: [String]) -> Bool? {
        guard cells.count == BenchReport.header.count, cells[4] != none,
            let symbol = cells[4].first, let bound = BenchFormat.number(in: cells[4].dropFirst().drop { $0 == " " }),
            let median = BenchFormat.number(in: Substring(cells[1]))
        else { return nil }
        var low = median
        var high = median
        if cells[2] != oneRun {
            let ends = cells[2].split(separator: rangeSeparator)
            guard ends.count == 2, let min = BenchFormat.number(in: ends[0]), let max = BenchFormat.number(in: ends[1])
            else { return nil }
            (low, high) = (min, max)
        }
        switch symbol {
        case "≥": return median >= bound
        case "≤": return median <= bound
        case "=": return low == bound && high == bound
        default: return nil
        }
    }

    /// One line per target: rows of one section that share a target are summed up together.
    public static func targetSummary(_ blocks: [Block]) -> [String] {
        var lines: [String] = []
        for block in blocks {
            let title = block.heading.dropFirst(2).prefix { $0 != ":" }
            var targets: [String] = []
            for row in block.rows where row[4] != none && !targets.contains(row[4]) { targets.append(row[4]) }
            for target in targets {
                let rows = block.rows.filter { $0[4] == target }
                let met = rows.filter { $0[5] == verdict(true) }
                if rows.count == 1 {
                    lines.append("\(rows[0][5]): \(title), \(rows[0][0]) — \(rows[0][1]) (target \(target))")
                } else {
                    let medians = rows.compactMap { row in BenchFormat.number(in: Substring(row[1])).map { (value: $0, row: row) } }
                    var range = ""
                    if let low = medians.min(by: { $0.value < $1.value }), let high = medians.max(by: { $0.value < $1.value }) {
                        range =
                            low.row[1] == high.row[1]
                            ? "; every median \(low.row[1])" : "; medians from \(low.row[1]) (\(low.row[0])) to \(high.row[1]) (\(high.row[0]))"
                    }
                    lines.append("\(verdict(met.count == rows.count)): \(title), \(target) — met by \(met.count) of \(rows.count)\(range)")
                }
            }
        }
        return lines
    }
}

/// `BENCHMARKS.md`: a title, where and when, then the printed run in a text block.
public enum BenchmarksFile: Sendable {
    /// The file's first line.
    public static let title = "# Benchmarks"
    static let open = "```text"
    static let close = "```"

    /// The file for `printed`, the run's text, under `preamble`.
    public static func render(preamble: [String], printed: String) -> String {
        ([title, ""] + preamble + ["", open, printed, close, ""]).joined(separator: "\n")
    }

    /// The file's parts: the preamble lines, the printed text, and the table read from it.
    public struct Parts: Sendable {
        /// The lines between the title and the text block.
        public var preamble: [String]
        /// The printed run.
        public var printed: String
        /// The printed run's table.
        public var blocks: [BenchTable.Block]
        /// The printed run's target lines (without their indent).
        public var targets: [String]

        /// Where `section`'s block is, found by its heading's start (its explanation may be
        /// worded as an older run worded it).
        public func blockIndex(of section: BenchSection) -> Int? {
            blocks.firstIndex { $0.heading.hasPrefix(section.headingPrefix) }
        }

        /// `section`'s rows' cells (none when the file lacks it).
        public func rows(of section: BenchSection) -> [[String]] { blockIndex(of: section).map { blocks[$0].rows } ?? [] }
    }

    /// `file` with the rows of `section` measured in `build` (their figure ends in `, <build> build`)
    /// replaced by `rows`, after the section's other rows, under the section's heading as this
    /// code words it; the table rendered again from its cells, the targets summed up again from
    /// it, the section's note replaced by `note` (when given and the file has one), and the
    /// preamble line that dates those rows replaced by `preambleLine` (added last; left out when
    /// `nil`). `nil` when `file` is not a `BENCHMARKS.md` or has no such section.
    public static func replacingRows(
        of section: BenchSection, build: String, by rows: [[String]], preambleLine: String?, note: String? = nil, in file: String
    ) -> String? {
        guard let parts = parse(file), let index = parts.blockIndex(of: section) else { return nil }
        var blocks = parts.blocks
        blocks[index].heading = section.heading
        blocks[index].rows = blocks[index].rows.filter { !Bench.isFigure($0[0], builtIn: build) } + rows
        var printed = parts.printed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let tableStart = printed.firstIndex(where: { $0.hasPrefix(BenchReport.header[0] + " ") }) else { return nil }
        let tableEnd = printed[tableStart...].firstIndex(of: "") ?? printed.count
        printed.replaceSubrange(tableStart..<tableEnd, with: BenchTable.render(blocks))
        if let heading = printed.firstIndex(of: "Targets:") {
            let end = printed[(heading + 1)...].firstIndex { !$0.hasPrefix("  ") } ?? printed.count
            printed.replaceSubrange((heading + 1)..<end, with: BenchTable.targetSummary(blocks).map { "  " + $0 })
        }
        if let note, let line = printed.firstIndex(where: { $0.hasPrefix("  - \(section.title): ") }) {
            printed[line] = "  - " + note
        }
        var preamble = parts.preamble.filter { !$0.hasPrefix(BenchReport.compositionLinePrefix(build)) }
        if let preambleLine { preamble.append(preambleLine) }
        return render(preamble: preamble, printed: printed.joined(separator: "\n"))
    }

    /// Reads a `BENCHMARKS.md` written by ``render(preamble:printed:)``; `nil` when it is not one.
    public static func parse(_ file: String) -> Parts? {
        let lines = file.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.first == title, let start = lines.firstIndex(of: open), let end = lines.lastIndex(of: close), start < end
        else { return nil }
        var preamble = Array(lines[1..<start])
        while preamble.first == "" { preamble.removeFirst() }
        while preamble.last == "" { preamble.removeLast() }
        let printed = Array(lines[(start + 1)..<end])
        guard let tableStart = printed.firstIndex(where: { $0.hasPrefix(BenchReport.header[0] + " ") }) else { return nil }
        let tableEnd = printed[tableStart...].firstIndex(of: "") ?? printed.count
        guard let blocks = BenchTable.parse(Array(printed[tableStart..<tableEnd])) else { return nil }
        var targets: [String] = []
        if let heading = printed.firstIndex(of: "Targets:") {
            for line in printed[(heading + 1)...] {
                guard line.hasPrefix("  ") else { break }
                targets.append(String(line.dropFirst(2)))
            }
        }
        return Parts(preamble: preamble, printed: printed.joined(separator: "\n"), blocks: blocks, targets: targets)
    }
}
