import AuthSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The machine the figures were measured on: architecture, cores, CPU, OS and compiler.
public struct MachineDescription: Hashable, Sendable {
    /// `uname -m`, e.g. `x86_64`.
    public var architecture: String
    /// Cores online.
    public var cores: Int
    /// The CPU model, where the OS says (`/proc/cpuinfo` on Linux).
    public var cpu: String?
    /// The OS, e.g. `Debian GNU/Linux 12 (bookworm)`, with the kernel release.
    public var os: String
    /// The Swift compiler that built the bench.
    public var swift: String

    /// Creates a description.
    public init(architecture: String, cores: Int, cpu: String?, os: String, swift: String) {
        self.architecture = architecture
        self.cores = cores
        self.cpu = cpu
        self.os = os
        self.swift = swift
    }

    /// How `BENCHMARKS.md`'s preamble names the machine: "- Machine: `x86_64` (`uname -m`), 2 cores online (AMD EPYC)".
    public var preambleLine: String {
        "- Machine: `\(architecture)` (`uname -m`), \(cores) cores online\(cpu.map { " (\($0))" } ?? "")"
    }

    /// Whether a `BENCHMARKS.md` with `preamble` was measured here: the same architecture, cores
    /// and CPU, and the same Swift. The OS's kernel release may differ (a virtual machine's host
    /// updates it under the same hardware), so figures from either compare.
    public func measured(_ preamble: [String]) -> Bool {
        preamble.contains(preambleLine) && preamble.contains { $0.hasPrefix("- Swift: \(swift),") }
    }

    /// The machine running this process.
    public static var current: MachineDescription {
        var names = utsname()
        uname(&names)
        func field<T>(_ value: inout T) -> String {
            withUnsafePointer(to: &value) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout<T>.size) { String(cString: $0) }
            }
        }
        let system = field(&names.sysname)
        let release = field(&names.release)
        var os = "\(system) \(release)"
        if let pretty = readText("/etc/os-release")?.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") }) {
            os = pretty.dropFirst("PRETTY_NAME=".count).filter { $0 != "\"" } + " (\(system) \(release))"
        }
        let cpu = readText("/proc/cpuinfo")?.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { line in line.split(separator: ":", maxSplits: 1).last.map { String($0.drop { $0 == " " }) } }
        return MachineDescription(
            architecture: field(&names.machine), cores: ProcessInfo.processInfo.activeProcessorCount, cpu: cpu, os: os, swift: swiftVersion)
    }

    /// The toolchain's full version when `swift --version` on the PATH is the one that built
    /// this binary (`Swift 6.3.1`), else what `#if compiler` tells (`Swift 6.3`).
    static var swiftVersion: String {
        guard let reported = toolchainVersion,
            reported.hasPrefix(compilerVersion.dropFirst("Swift ".count) + ".") || "Swift " + reported == compilerVersion
        else { return compilerVersion }
        return "Swift " + reported
    }

    /// The version `swift --version` reports (`6.3.1`), or `nil` when there is no `swift` to ask.
    static var toolchainVersion: String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "--version"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let text = String(data: data, encoding: .utf8),
            let range = text.range(of: "Swift version ")
        else { return nil }
        let version = text[range.upperBound...].prefix { $0.isNumber || $0 == "." }
        return version.isEmpty ? nil : String(version)
    }

    /// The compiler version, as far as `#if compiler` tells.
    static var compilerVersion: String {
        #if compiler(>=6.5)
        "Swift 6.5 or later"
        #elseif compiler(>=6.4)
        "Swift 6.4"
        #elseif compiler(>=6.3)
        "Swift 6.3"
        #elseif compiler(>=6.2)
        "Swift 6.2"
        #elseif compiler(>=6.1)
        "Swift 6.1"
        #else
        "Swift 6.0"
        #endif
    }

    /// One line: `x86_64, 2 cores (CPU), OS, Swift`.
    public var summary: String {
        "\(architecture), \(cores) cores\(cpu.map { " (\($0))" } ?? ""), \(os), \(swift)"
    }

    /// For `BENCHMARKS.md`.
    public var markdown: String {
        "`\(architecture)` (`uname -m`), \(cores) cores online\(cpu.map { " (\($0))" } ?? ""); \(os); built with \(swift) in release mode"
    }

    /// As JSON.
    public var json: String {
        JSON.object([
            ("architecture", JSON.string(architecture)), ("cores", "\(cores)"), ("cpu", cpu.map(JSON.string) ?? "null"),
            ("os", JSON.string(os)), ("swift", JSON.string(swift)),
        ])
    }
}

/// Reads a whole (small) text file, or `nil`.
func readText(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The process's resident memory: its current size and its peak.
///
/// On Linux the peak is `VmHWM` in `/proc/self/status`, and writing `5` to
/// `/proc/self/clear_refs` resets it, so each exploration's own peak is measured. Elsewhere the
/// peak is `getrusage`'s `ru_maxrss`, which cannot be reset: it is the process's peak so far.
public enum ResidentMemory: Sendable {
    /// Resets the peak to the current size; false where the OS cannot.
    @discardableResult
    public static func resetPeak() -> Bool {
        #if os(Linux)
        guard let file = fopen("/proc/self/clear_refs", "w") else { return false }
        defer { fclose(file) }
        return fputs("5", file) >= 0
        #else
        return false
        #endif
    }

    /// The current resident size in bytes (`VmRSS`), or `nil` where unknown.
    public static var current: Int? { statusField("VmRSS:") }

    /// The peak resident size in bytes since start or the last reset.
    public static var peak: Int {
        if let hwm = statusField("VmHWM:") { return hwm }
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        #if canImport(Darwin)
        return Int(usage.ru_maxrss)  // bytes on Darwin
        #else
        return Int(usage.ru_maxrss) * 1024  // kilobytes elsewhere
        #endif
    }

    /// A `kB` field of `/proc/self/status`, in bytes.
    static func statusField(_ name: String) -> Int? {
        guard let status = readText("/proc/self/status"),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) })
        else { return nil }
        let digits = line.dropFirst(name.count).filter(\.isNumber)
        return Int(digits).map { $0 * 1024 }
    }

    /// How memory is measured here, for the report's notes.
    public static var method: String {
        #if os(Linux)
        "memory: before each exploration freed memory goes back to the OS (malloc_trim) and the peak is reset (writing 5 to /proc/self/clear_refs); "
            + "\"peak RSS\" is then the whole process's peak resident size during that exploration (VmHWM in /proc/self/status: the bench's own "
            + "code and data included, about 35 MiB) and \"+… resident\" is that peak minus the resident size just before it (VmRSS), what the exploration itself added"
        #else
        "memory: getrusage max RSS — the process's peak so far, which cannot be reset, so later rows never show less than earlier ones"
        #endif
    }
}
