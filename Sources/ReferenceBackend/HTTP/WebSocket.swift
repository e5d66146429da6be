import Foundation

/// The server side of one WebSocket connection (RFC 6455) after the 101 handshake.
///
/// Reads client frames (which must be masked), answers pings, reassembles fragments and
/// answers a close with a close; `receive()` hands text and binary messages to the caller.
final class WebSocket: Sendable {
    /// A complete message from the client.
    enum Message: Sendable, Equatable {
        /// A text message.
        case text(String)
        /// A binary message.
        case binary(Data)
    }

    private let descriptor: Int32
    private let maxPayload: Int
    /// Bytes read but not yet parsed; only the session's own thread reads, so this lock is never contended.
    private let buffer: Locked<[UInt8]>
    private let closed = Locked(false)
    private let writing = Locked(())

    /// The magic GUID of RFC 6455 §1.3.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Accept` value for a client's `Sec-WebSocket-Key`.
    static func acceptValue(forKey key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }

    init(descriptor: Int32, leftover: [UInt8], maxPayload: Int) {
        self.descriptor = descriptor
        self.maxPayload = maxPayload
        buffer = Locked(leftover)
    }

    /// The next text or binary message; `nil` once the connection is closed (by either side, a timeout or an error).
    func receive() -> Message? {
        var fragments: [UInt8] = []
        var fragmentOpcode: UInt8?
        while let (final, opcode, payload) = readFrame() {
            switch opcode {
            case 0x0, 0x1, 0x2:
                if opcode != 0 { fragmentOpcode = opcode }
                fragments += payload
                guard final, let kind = fragmentOpcode else { continue }
                return kind == 0x1 ? .text(String(decoding: fragments, as: UTF8.self)) : .binary(Data(fragments))
            case 0x8:
                close(code: payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 1000)
                return nil
            case 0x9:
                write(opcode: 0xA, payload)
            case 0xA:
                continue
            default:
                close(code: 1002)
                return nil
            }
        }
        return nil
    }

    /// Sends a text message; returns whether it was written.
    @discardableResult
    func send(text: String) -> Bool {
        write(opcode: 0x1, Array(text.utf8))
    }

    /// Sends a close frame with `code` (1000 normal, 1001 going away, 1008 policy violation…) once,
    /// then shuts the connection down.
    ///
    /// The socket counts as closed only once the frame is written: the reader stops at a closed
    /// socket and its connection thread then closes the descriptor, so marking it closed before
    /// writing (as this did) let a server-side close race the reader between two frames, and the
    /// frame went to a descriptor already closed — the client saw the stream end with no close.
    func close(code: UInt16, reason: String = "") {
        let frame = Self.frame(opcode: 0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123)))
        writing.withLock { _ in
            guard !closed.withLock({ $0 }) else { return }
            _ = Socket.write(descriptor, frame)
            Socket.shutdownBoth(descriptor)
            closed.withLock { $0 = true }
        }
    }

    private func readFrame() -> (final: Bool, opcode: UInt8, payload: [UInt8])? {
        guard !closed.withLock({ $0 }) else { return nil }
        return buffer.withLock { buffer -> (Bool, UInt8, [UInt8])? in
            guard fill(&buffer, to: 2) else { return nil }
            let final = buffer[0] & 0x80 != 0
            let opcode = buffer[0] & 0x0F
            let masked = buffer[1] & 0x80 != 0
            var length = Int(buffer[1] & 0x7F)
            var offset = 2
            if length >= 126 {
                let extra = length == 126 ? 2 : 8
                guard fill(&buffer, to: offset + extra) else { return nil }
                length = buffer[offset..<offset + extra].reduce(0) { $0 << 8 | Int($1) }
                offset += extra
            }
            guard masked, length >= 0, length <= maxPayload, fill(&buffer, to: offset + 4 + length) else { return nil }
            let mask = Array(buffer[offset..<offset + 4])
            offset += 4
            let payload = buffer[offset..<offset + length].enumerated().map { $0.element ^ mask[$0.offset % 4] }
            buffer.removeFirst(offset + length)
            return (final, opcode, payload)
        }
    }

    /// Reads until `buffer` holds `count` bytes. An idle WebSocket stays open (clients may wait
    /// long between messages): it ends when either side closes it or the server stops, which shuts
    /// the descriptor down — not after the HTTP read timeout, which would drop a socket its client
    /// simply had not used yet, without a close frame.
    private func fill(_ buffer: inout [UInt8], to count: Int) -> Bool {
        while buffer.count < count {
            guard Socket.read(descriptor, into: &buffer, throughTimeouts: true) != nil else { return false }
        }
        return true
    }

    @discardableResult
    private func write(opcode: UInt8, _ payload: [UInt8]) -> Bool {
        let frame = Self.frame(opcode: opcode, payload)
        return writing.withLock { _ in Socket.write(descriptor, frame) }
    }

    /// A final, unmasked frame (servers never mask).
    private static func frame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case 0..<126:
            frame.append(UInt8(payload.count))
        case 126...0xFFFF:
            frame += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(127)
            frame += (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        return frame + payload
    }
}
