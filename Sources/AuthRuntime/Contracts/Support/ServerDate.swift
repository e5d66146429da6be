import AuthCore
import Foundation

/// Reads the date forms the API documents and HTTP show, by hand (no `DateFormatter`: no locale, no
/// shared mutable state), and never traps on what it cannot read.
///
/// - RFC 3339 / ISO 8601 with `Z` or an offset, fractional seconds optional:
///   `2025-10-10T10:00:00Z` (Subspace), `2026-01-30T15:17:41.123-08:00`.
/// - Java's `ZonedDateTime` form with a region after the offset:
///   `2026-01-30T15:17:41-08:00[America/Los_Angeles]` (Anonymous Wall). The offset decides the
///   instant; a region without an offset is looked up in the system's time-zone database.
/// - The IMF-fixdate form of HTTP (`Retry-After`, RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
///
/// Text cut short as the API documents print it (`2026-01-28T...`) is `nil`, not an error: the contracts
/// never make an answer unreadable because of a date they do not need.
public enum ServerDate {
    /// The instant `text` names, or `nil`.
    public static func parse(_ text: String) -> Instant? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return iso8601(trimmed) ?? httpDate(trimmed)
    }

    // MARK: ISO 8601

    private static func iso8601(_ text: String) -> Instant? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
            let day = scanner.digits(2)
        else { return nil }
        guard scanner.take("T") || scanner.take("t") || scanner.take(" ") else { return nil }
        guard let hour = scanner.digits(2), scanner.take(":"), let minute = scanner.digits(2), scanner.take(":"),
            let second = scanner.digits(2)
        else { return nil }
        var milliseconds = 0
        if scanner.take(".") || scanner.take(",") {
            var fraction = 0
            var places = 0
            while let digit = scanner.digit() {
                if places < 3 { fraction = fraction * 10 + digit }
                places += 1
            }
            guard places > 0 else { return nil }
            while places < 3 {
                fraction *= 10
                places += 1
            }
            milliseconds = fraction
        }
        var offsetSeconds: Int?
        if scanner.take("Z") || scanner.take("z") {
            offsetSeconds = 0
        } else if let sign = scanner.sign() {
            guard let hours = scanner.digits(2) else { return nil }
            _ = scanner.take(":")
            guard let minutes = scanner.digits(2), hours < 24, minutes < 60 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        }
        var region: String?
        if scanner.take("[") {
            guard let name = scanner.until("]"), !name.isEmpty, scanner.take("]") else { return nil }
            region = name
        }
        guard scanner.atEnd, (1...12).contains(month), (1...daysIn(month, of: year)).contains(day), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        let local = Int64(daysFromCivil(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59))
        let offset: Int
        if let offsetSeconds {
            offset = offsetSeconds
        } else if let region, let zone = TimeZone(identifier: region) {
            // The zone's offset at the local time read as UTC, then corrected once for the offset itself.
            let guess = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local)))
            offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local - Int64(guess))))
        } else {
            return nil  // A local time with no offset and no region names no instant.
        }
        return Instant(milliseconds: (local - Int64(offset)) * 1000 + Int64(milliseconds))
    }

    // MARK: HTTP-date

    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    private static func httpDate(_ text: String) -> Instant? {
        let words = text.split(separator: " ")
        guard words.count == 6, words[0].count == 4, words[0].hasSuffix(","), dayNames.contains(String(words[0].dropLast())),
            words[1].count == 2, let day = Int(words[1]), let monthIndex = monthNames.firstIndex(of: String(words[2])),
            words[3].count == 4, let year = Int(words[3]), words[5] == "GMT"
        else { return nil }
        let clock = words[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = Int(clock[0]), let minute = Int(clock[1]),
            let second = Int(clock[2]), hour < 24, minute < 60, second <= 60, (1...daysIn(monthIndex + 1, of: year)).contains(day)
        else { return nil }
        let seconds =
            Int64(daysFromCivil(year: year, month: monthIndex + 1, day: day)) * 86_400
            + Int64(hour * 3600 + minute * 60 + min(second, 59))
        return Instant(milliseconds: seconds * 1000)
    }

    // MARK: Calendar arithmetic (proleptic Gregorian)

    private static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// A cursor over ASCII bytes for the date grammar.
private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func take(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, index < bytes.count, bytes[index] == ascii else { return false }
        index += 1
        return true
    }

    mutating func digit() -> Int? {
        guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
        defer { index += 1 }
        return Int(bytes[index] - 0x30)
    }

    mutating func digits(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    mutating func sign() -> Int? {
        if take("+") { return 1 }
        if take("-") { return -1 }
        return nil
    }

    mutating func until(_ terminator: Character) -> String? {
        guard let ascii = terminator.asciiValue else { return nil }
        let start = index
        while index < bytes.count, bytes[index] != ascii { index += 1 }
        guard index < bytes.count else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }
}
