import Foundation

/// Long synchronous work the tests of one process share (the diagrams' explorations, a whole
/// bench run), computed once on a thread of its own.
public enum OwnThread {
    /// `work`'s result, computed on a new thread with a 16 MiB stack (the size the diagrams'
    /// explorations have always run with). The caller suspends meanwhile instead of holding one of
    /// the test runner's few threads, so the tests that wait on a subprocess or a socket (each
    /// with a time limit) keep running.
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.stackSize = 16 << 20
            thread.start()
        }
    }
}
