import Foundation

/// Minimal client-side WebSocket framing over a `RawConnection`, for tests.
extension RawConnection {
    /// Sends the opening handshake for `path` with the RFC 6455 sample key and returns the answer head.
    public func openWebSocket(_ path: String) -> String {
        send(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        return readHead()
    }

    /// Sends one masked frame.
    public func sendFrame(opcode: UInt8, _ payload: [UInt8]) {
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        send(frame)
    }

    /// Reads one unmasked server frame: its opcode and payload, or `nil` when the connection ended.
    public func readFrame() -> (opcode: UInt8, payload: [UInt8])? {
        guard let header = readExactly(2) else { return nil }
        var length = Int(header[1] & 0x7F)
        if length == 126 {
            guard let extended = readExactly(2) else { return nil }
            length = Int(extended[0]) << 8 | Int(extended[1])
        } else if length == 127 {
            guard let extended = readExactly(8) else { return nil }
            length = extended.reduce(0) { $0 << 8 | Int($1) }
        }
        guard let payload = readExactly(length) else { return nil }
        return (header[0] & 0x0F, payload)
    }

    /// Reads one text frame's text.
    public func readText() -> String? {
        guard let frame = readFrame(), frame.opcode == 0x1 else { return nil }
        return String(decoding: frame.payload, as: UTF8.self)
    }
}
