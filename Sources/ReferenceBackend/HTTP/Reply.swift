import Foundation

/// How a connection delivers the answer to one request; faults pick the unusual ones.
enum Reply: Sendable {
    /// Send the response normally.
    case respond(HTTPResponse)
    /// Close the connection without sending anything.
    case drop
    /// Send the head with the full `Content-Length` but only half the body, then close.
    case truncate(HTTPResponse)
    /// Send the response in small chunks with `interval` seconds between them.
    case trickle(HTTPResponse, interval: TimeInterval)
}
