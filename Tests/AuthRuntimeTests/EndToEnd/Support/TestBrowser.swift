import AuthTestSupport
import Foundation
import Testing

/// The user's browser, as a test plays it: it opens a page on the loopback server, keeps the
/// cookies the server sets, follows the server's redirects, fills the login form it is shown,
/// and stops at the first redirect that leaves the web (the app's private-use scheme, which a
/// real browser hands to the app).
///
/// Plain HTTP/1.1 over a socket, one request per connection, so that nothing (no URLSession
/// redirect handling, no cookie store) does anything the test did not write.
final class TestBrowser {
    /// One answer.
    struct Page {
        var url: URL
        var status: Int
        var headers: [(name: String, value: String)]
        var body: String

        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private var cookies: [(name: String, value: String)] = []

    /// Opens `url`, signs in as `username` on the login page when shown one, and returns the
    /// redirect to the app.
    func signIn(at url: URL, username: String, password: String) throws -> URL {
        var page = try send("GET", url)
        var signedIn = false
        for _ in 0..<10 {
            if (300..<400).contains(page.status) {
                guard let location = page.header("Location"), let next = URL(string: location, relativeTo: page.url)?.absoluteURL else {
                    throw Failure(description: "a redirect without a location from \(page.url.path)")
                }
                guard next.scheme == "http" else { return next }  // The app's redirect: not followed.
                page = try send("GET", next)
            } else if page.status == 200, !signedIn, let form = Self.hiddenFields(page.body), form["csrfmiddlewaretoken"] != nil {
                var fields = form.map { ($0.key, $0.value) }
                fields += [("username", username), ("password", password)]
                page = try send("POST", page.url, form: fields)
                signedIn = true
            } else {
                throw Failure(description: "\(page.url.path) answered \(page.status): \(page.body.prefix(500))")
            }
        }
        throw Failure(description: "too many redirects")
    }

    /// Opens `url` on the server, signing in as `username` on the login page when shown it, and
    /// following the server's redirects: the first page that is neither (a page of the server's).
    func open(_ url: URL, username: String, password: String) throws -> Page {
        try follow(try send("GET", url), username: username, password: password)
    }

    /// Submits the form of `page` (one form, posted to the page itself): its hidden fields (the
    /// CSRF token) and `fields`, as clicking its button `fields` names would; then follows the
    /// server's redirects to the next page.
    func submit(_ page: Page, _ fields: [(String, String)]) throws -> Page {
        guard let form = Self.hiddenFields(page.body), form["csrfmiddlewaretoken"] != nil else {
            throw Failure(description: "no form on \(page.url.path): \(page.body.prefix(500))")
        }
        return try follow(try send("POST", page.url, form: form.map { ($0.key, $0.value) } + fields), username: nil, password: nil)
    }

    /// Follows redirects from `page` (signing in once on the login page, given a user) to a page.
    private func follow(_ page: Page, username: String?, password: String?) throws -> Page {
        var page = page
        var signedIn = false
        for _ in 0..<10 {
            if (300..<400).contains(page.status) {
                guard let location = page.header("Location"), let next = URL(string: location, relativeTo: page.url)?.absoluteURL,
                    next.scheme == "http"
                else { throw Failure(description: "\(page.url.path) redirected out of the server") }
                page = try send("GET", next)
            } else if page.status == 200, page.url.path.hasPrefix("/accounts/login") {
                guard let username, let password, !signedIn, let form = Self.hiddenFields(page.body) else {
                    throw Failure(description: "the login page again: \(page.body.prefix(500))")
                }
                page = try send("POST", page.url, form: form.map { ($0.key, $0.value) } + [("username", username), ("password", password)])
                signedIn = true
            } else if page.status == 200 {
                return page
            } else {
                throw Failure(description: "\(page.url.path) answered \(page.status): \(page.body.prefix(500))")
            }
        }
        throw Failure(description: "too many redirects")
    }

    /// One request to the loopback server, with the cookies kept so far; keeps the ones it sets.
    func send(_ method: String, _ url: URL, form: [(String, String)]? = nil) throws -> Page {
        guard url.host == "127.0.0.1", let port = url.port, let connection = RawConnection(port: UInt16(port), timeout: 10) else {
            throw Failure(description: "cannot connect to \(url.absoluteString)")
        }
        var target = url.path(percentEncoded: true)
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nUser-Agent: AuthCoreTests\r\n"
        if !cookies.isEmpty { head += "Cookie: " + cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ") + "\r\n" }
        var body = ""
        if let form {
            body = form.map { Self.formEncoded($0.0) + "=" + Self.formEncoded($0.1) }.joined(separator: "&")
            head += "Origin: http://127.0.0.1:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            head += "Content-Length: \(body.utf8.count)\r\n"
        }
        connection.send(head + "\r\n" + body)
        let answer = connection.readToEnd()
        guard let split = answer.range(of: "\r\n\r\n") else { throw Failure(description: "no answer from \(url.path)") }
        var lines = answer[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(description: "no status from \(url.path)") }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        for (name, value) in headers where name.lowercased() == "set-cookie" {
            guard let pair = value.split(separator: ";").first, let equals = pair.firstIndex(of: "=") else { continue }
            let cookie = (name: pair[..<equals].trimmingCharacters(in: .whitespaces), value: String(pair[pair.index(after: equals)...]))
            cookies.removeAll { $0.name == cookie.name }
            cookies.append(cookie)
        }
        return Page(url: url, status: status, headers: headers, body: String(answer[split.upperBound...]))
    }

    /// The hidden inputs of the page's form (`name` → `value`, HTML entities decoded), `nil`
    /// without any.
    static func hiddenFields(_ html: String) -> [String: String]? {
        var fields: [String: String] = [:]
        for tag in html.components(separatedBy: "<input").dropFirst() {
            let tag = String(tag.prefix { $0 != ">" })
            guard attribute("type", in: tag) == "hidden", let name = attribute("name", in: tag) else { continue }
            fields[name] = attribute("value", in: tag) ?? ""
        }
        return fields.isEmpty ? nil : fields
    }

    /// The value of `name="…"` in a tag, entities decoded.
    private static func attribute(_ name: String, in tag: String) -> String? {
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        let rest = tag[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#x27;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `application/x-www-form-urlencoded`: unreserved characters as they are, everything else
    /// percent-encoded (a space as `%20`).
    private static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"))
            ?? text
    }
}
