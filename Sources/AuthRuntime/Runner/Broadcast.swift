/// Hands every element to each subscriber's `AsyncStream`; subscribers that stopped listening
/// are dropped at the next element.
@usableFromInline
struct Broadcast<Element: Sendable> {
    @usableFromInline var continuations: [AsyncStream<Element>.Continuation] = []

    /// No subscribers.
    @inlinable init() {}

    /// A new subscriber's stream, starting with `initial` elements.
    @inlinable
    mutating func subscribe(
        _ initial: [Element] = [], buffering: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: buffering)
        for element in initial { continuation.yield(element) }
        continuations.append(continuation)
        return stream
    }

    /// Hands `element` to every subscriber.
    @inlinable
    mutating func yield(_ element: Element) {
        guard !continuations.isEmpty else { return }
        continuations.removeAll { continuation in
            if case .terminated = continuation.yield(element) { return true }
            return false
        }
    }

    /// Ends every stream.
    @inlinable
    mutating func finish() {
        for continuation in continuations { continuation.finish() }
        continuations.removeAll()
    }
}
