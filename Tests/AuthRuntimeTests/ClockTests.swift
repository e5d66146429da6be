import AuthCore
@testable import AuthRuntime
import AuthSupport
import Testing

@Suite("Clocks", .timeLimit(.minutes(15)))
struct ClockTests {
    let t0 = Instant.seconds(1_700_000_000)

    @Test("the manual clock runs due wake-ups in deadline order, each seeing its own deadline as now")
    func manualOrder() async {
        let clock = ManualClock(now: t0)
        let seen = Locked<[Instant]>([])
        for offset in [30, 10, 20, 90] as [Int64] {
            _ = clock.wake(at: t0 + .seconds(offset)) { seen.withLock { $0.append(clock.now) } }
        }
        await clock.advance(by: .seconds(60))
        #expect(seen.withLock { $0 } == [t0 + .seconds(10), t0 + .seconds(20), t0 + .seconds(30)])
        #expect(clock.now == t0 + .seconds(60))
        #expect(clock.pendingDeadlines == [t0 + .seconds(90)])
    }

    @Test("a cancelled wake-up never runs; a past deadline runs on the next advance, even by zero")
    func manualCancelAndPast() async {
        let clock = ManualClock(now: t0)
        let ran = Locked<[String]>([])
        let cancelled = clock.wake(at: t0 + .seconds(1)) { ran.withLock { $0.append("cancelled") } }
        _ = clock.wake(at: t0 - .seconds(5)) { ran.withLock { $0.append("past") } }
        cancelled.cancel()
        #expect(ran.withLock { $0 }.isEmpty)
        await clock.advance(by: .zero)
        #expect(ran.withLock { $0 } == ["past"])
        await clock.advance(by: .seconds(10))
        #expect(ran.withLock { $0 } == ["past"])
        #expect(clock.now == t0 + .seconds(10))
    }

    @Test("a wake-up set by a wake-up runs in the same advance when it falls due by then")
    func manualChained() async {
        let clock = ManualClock(now: t0)
        let ran = Locked<[Instant]>([])
        _ = clock.wake(at: t0 + .seconds(1)) {
            ran.withLock { $0.append(clock.now) }
            _ = clock.wake(at: clock.now + .seconds(1)) { ran.withLock { $0.append(clock.now) } }
        }
        await clock.advance(by: .seconds(5))
        #expect(ran.withLock { $0 } == [t0 + .seconds(1), t0 + .seconds(2)])
    }

    @Test("the system clock runs a wake-up whose deadline has passed, and reads the system time")
    func systemPastDeadline() async {
        let clock = SystemClock()
        let before = clock.now
        let fired = Gate()
        _ = clock.wake(at: before - .seconds(1)) { fired.open() }
        #expect(await fired.wait())
        #expect(clock.now >= before)
    }
}
