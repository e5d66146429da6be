#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Thin wrappers over the POSIX socket calls the server needs, hiding Linux/Darwin differences.
enum Socket {
    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    #endif

    /// Creates a TCP socket listening on 127.0.0.1:`port` (0 picks a free port) and returns it with the bound port.
    static func listen(port: UInt16, backlog: Int32) throws(ReferenceServerError) -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw .socketFailed(operation: "socket", errno: errno) }
        func failure(_ operation: String) -> ReferenceServerError {
            let number = errno
            close(descriptor)
            return .socketFailed(operation: operation, errno: number)
        }
        var reuse: Int32 = 1
        guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw failure("setsockopt")
        }
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw failure("bind") }
        guard systemListen(descriptor, backlog) == 0 else { throw failure("listen") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw failure("getsockname") }
        return (descriptor, UInt16(bigEndian: actual.sin_port))
    }

    /// Waits up to `milliseconds` for the listening socket to have a pending connection.
    static func waitReadable(_ descriptor: Int32, milliseconds: Int32) -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&request, 1, milliseconds) > 0
    }

    /// Accepts one pending connection and names its peer's IP, or returns `nil` when there is none.
    static func accept(_ descriptor: Int32) -> (descriptor: Int32, remoteAddress: String)? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let connection = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { systemAccept(descriptor, $0, &length) }
        }
        guard connection >= 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        _ = inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(INET_ADDRSTRLEN))
        let remote = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (connection, remote)
    }

    /// Applies the per-connection options: read/write timeouts, no SIGPIPE, no Nagle delay.
    static func configureConnection(_ descriptor: Int32, timeout: TimeInterval) {
        var interval = timeval(
            tv_sec: Int(timeout),
            tv_usec: .init((timeout - Double(Int(timeout))) * 1_000_000)
        )
        let size = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &interval, size)
        enable(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY)
        #if canImport(Darwin)
        enable(descriptor, SOL_SOCKET, SO_NOSIGPIPE)
        #endif
    }

    /// Reads what is available (blocking up to the socket's read timeout); `nil` on EOF, timeout or
    /// error — or, when `throughTimeouts`, only on EOF or error (an idle WebSocket is not a dead one).
    static func read(_ descriptor: Int32, into buffer: inout [UInt8], maximum: Int = 64 * 1024, throughTimeouts: Bool = false) -> Int? {
        var chunk = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, maximum, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return count
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && throughTimeouts && (errno == EAGAIN || errno == EWOULDBLOCK) { continue }
            return nil
        }
    }

    /// Writes all of `bytes`; returns `false` when the peer is gone or the write timed out.
    static func write(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                send(descriptor, $0.baseAddress! + offset, bytes.count - offset, sendFlags)
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Ends both directions of a connection, waking any thread blocked reading it.
    static func shutdownBoth(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
        #else
        _ = Darwin.shutdown(descriptor, SHUT_RDWR)
        #endif
    }

    /// Ends the sending side, then reads and discards what the peer still sends (at most `limit`
    /// bytes, half a second per read) so a refusal reaches a client that is still uploading.
    static func drainAndFinish(_ descriptor: Int32, limit: Int) {
        #if canImport(Glibc)
        _ = Glibc.shutdown(descriptor, Int32(SHUT_WR))
        #else
        _ = Darwin.shutdown(descriptor, SHUT_WR)
        #endif
        var interval = timeval(tv_sec: 0, tv_usec: 500_000)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        var discarded = 0
        var scratch: [UInt8] = []
        while discarded < limit, let count = read(descriptor, into: &scratch) {
            discarded += count
            scratch.removeAll(keepingCapacity: true)
        }
    }

    /// Closes a descriptor.
    static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }

    private static func enable(_ descriptor: Int32, _ level: Int32, _ name: Int32) {
        var value: Int32 = 1
        _ = setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }
}

#if canImport(Glibc)
private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 { Glibc.listen(descriptor, backlog) }
private func systemAccept(_ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t) -> Int32 {
    Glibc.accept(descriptor, address, &length)
}
#else
private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 { Darwin.listen(descriptor, backlog) }
private func systemAccept(_ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t) -> Int32 {
    Darwin.accept(descriptor, address, &length)
}
#endif
