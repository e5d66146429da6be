/// A command line split into a command, positional arguments, `--option value` pairs and
/// `--flag`s, for `authflow` and a verification executable (`VerificationCommand`). Small on
/// purpose: AuthCore carries no argument-parsing package.
public struct Arguments: Hashable, Sendable {
    /// The subcommand (`verify`, `explore`, …), if any.
    public var command: String?
    /// Positional arguments after the command.
    public var positional: [String]
    /// `--name value` options.
    public var options: [String: String]
    /// `--name` flags.
    public var flags: Set<String>

    /// Why a command line was refused.
    public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
        /// An option that needs a value came last.
        case missingValue(String)
        /// An option or flag the command does not know.
        case unknown(String)
        /// A value that is not a number where one is needed.
        case notANumber(option: String, value: String)
        /// A number outside the values the option accepts.
        case outOfRange(option: String, value: String, range: ClosedRange<Int>)
        /// An option or flag another command takes, given to one that does not.
        case notTaken(command: String, option: String)
        /// A positional argument past the `takes` the command reads.
        case extraArgument(command: String, argument: String, takes: Int)

        /// A message for the terminal.
        public var description: String {
            switch self {
            case .missingValue(let option): "--\(option) needs a value"
            case .unknown(let name): "unknown option --\(name) (see --help)"
            case .notANumber(let option, let value): "--\(option) takes a number, not '\(value)'"
            case .outOfRange(let option, let value, let range):
                "--\(option) takes a number from \(range.lowerBound) to \(range.upperBound), not \(value)"
            case .notTaken(let command, let option): "\(command) takes no --\(option) (see authflow \(command) --help)"
            case .extraArgument(let command, let argument, let takes):
                takes == 0
                    ? "\(command) takes no arguments, not '\(argument)' (see authflow \(command) --help)"
                    : "\(command) takes \(takes == 1 ? "one argument" : "\(takes) arguments"); '\(argument)' is one too many (see authflow \(command) --help)"
            }
        }
    }

    /// Parses `words` (without the program name). `valued` names the options that take a value;
    /// every other `--name` is a flag, and must be in `flags`.
    public static func parse(_ words: [String], valued: Set<String>, flags allowed: Set<String>) throws(Problem) -> Arguments {
        var result = Arguments(command: nil, positional: [], options: [:], flags: [])
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            if word.hasPrefix("--") {
                var name = String(word.dropFirst(2))
                var inline: String?
                if let equals = name.firstIndex(of: "=") {
                    inline = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                if valued.contains(name) {
                    if let inline {
                        result.options[name] = inline
                    } else {
                        guard index < words.count else { throw .missingValue(name) }
                        result.options[name] = words[index]
                        index += 1
                    }
                } else if allowed.contains(name), inline == nil {
                    result.flags.insert(name)
                } else {
                    throw .unknown(name)
                }
            } else if word == "-h" {
                result.flags.insert("help")
            } else if result.command == nil {
                result.command = word
            } else {
                result.positional.append(word)
            }
        }
        return result
    }

    /// An integer option, or `fallback` when absent.
    public func integer(_ name: String, default fallback: Int) throws(Problem) -> Int {
        guard let value = options[name] else { return fallback }
        guard let number = Int(value) else { throw .notANumber(option: name, value: value) }
        return number
    }

    /// An unsigned 64-bit option (seeds, in decimal or `0x` hex), or `fallback` when absent.
    public func seed(_ name: String, default fallback: UInt64) throws(Problem) -> UInt64 {
        guard let value = options[name] else { return fallback }
        let parsed = value.hasPrefix("0x") ? UInt64(value.dropFirst(2), radix: 16) : UInt64(value)
        guard let number = parsed else { throw .notANumber(option: name, value: value) }
        return number
    }
}
