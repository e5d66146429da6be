import AuthRuntime
import Foundation
import Testing

@Suite("HTTP messages")
struct HTTPMessageTests {
    @Test("header lookup ignores case and setting replaces every field of that name")
    func headerLookup() {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "x-user-id": "7"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers["X-User-Id"] == "7")
        headers["X-USER-ID"] = "8"
        #expect(headers.fields.count == 2)
        #expect(headers["x-user-id"] == "8")
        headers["x-user-id"] = nil
        #expect(headers["X-User-Id"] == nil)
    }

    @Test("a request's and a response's descriptions show no header, query or body")
    func descriptionsRedact() throws {
        let url = try #require(URL(string: "http://127.0.0.1:8080/ws?token=SECRET-TOKEN"))
        let request = HTTPRequest(method: "GET", url: url, headers: ["Authorization": "Bearer SECRET-TOKEN"], body: Data("SECRET-BODY".utf8))
        let response = HTTPResponse(status: 200, headers: ["Set-Cookie": "SECRET-COOKIE"], body: Data("SECRET-BODY".utf8))
        for text in [request.description, String(reflecting: request), response.description, String(reflecting: response)] {
            #expect(!text.contains("SECRET"))
        }
        #expect(request.description == "GET /ws")
    }
}
