import Foundation

/// How the reference server's connection delivers the answer to one request (not the client's
/// `Reply`, an answer as a lifecycle reads it); faults pick the unusual ones.
enum ServerReply: Sendable {
    /// Send the response normally.
    case respond(ServerResponse)
    /// Close the connection without sending anything.
    case drop
    /// Send the head with the full `Content-Length` but only half the body, then close.
    case truncate(ServerResponse)
    /// Send the response in small chunks with `interval` seconds between them.
    case trickle(ServerResponse, interval: TimeInterval)
}
