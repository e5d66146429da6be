#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A plain TCP connection to 127.0.0.1, for bytes URLSession would never send.
public final class RawConnection: Sendable {
    private let descriptor: Int32

    /// Connects, or returns `nil` when the connection is refused.
    public init?(port: UInt16, timeout: TimeInterval = 5) {
        #if canImport(Glibc)
        let made = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let made = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard made >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(made, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(made)
            return nil
        }
        var interval = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(made, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        descriptor = made
    }

    deinit {
        close(descriptor)
    }

    /// Shuts the connection down both ways: a read blocked on it returns at once.
    public func shutdown() {
        #if canImport(Glibc)
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
        #else
        _ = Darwin.shutdown(descriptor, SHUT_RDWR)
        #endif
    }

    /// Sends bytes; returns whether all were written.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let written = bytes.withUnsafeBytes { systemSend(descriptor, $0.baseAddress! + offset, bytes.count - offset, flags) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Sends text.
    @discardableResult
    public func send(_ text: String) -> Bool {
        send(Array(text.utf8))
    }

    /// Reads until the server closes the connection (or the read timeout), returning all bytes as text.
    public func readToEnd() -> String {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            all.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: all, as: UTF8.self)
    }

    /// Reads exactly `count` bytes, or `nil` when the connection ends first.
    public func readExactly(_ count: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < count {
            guard recv(descriptor, &byte, 1, 0) == 1 else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// Reads an HTTP head, up to and including the blank line, one byte at a time so nothing after it is consumed.
    public func readHead() -> String {
        var bytes: [UInt8] = []
        while !bytes.suffix(4).elementsEqual([13, 10, 13, 10]), let next = readExactly(1) {
            bytes += next
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads until `marker` has arrived `occurrences` times (or the peer closes), returning the text read.
    public func read(until marker: String, occurrences: Int = 1) -> String {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while String(decoding: all, as: UTF8.self).components(separatedBy: marker).count <= occurrences {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            all.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: all, as: UTF8.self)
    }
}

#if canImport(Glibc)
private func systemSend(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    Glibc.send(fd, buffer, count, flags)
}
#else
private func systemSend(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    Darwin.send(fd, buffer, count, flags)
}
#endif
