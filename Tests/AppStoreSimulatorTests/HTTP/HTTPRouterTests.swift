import Testing

@testable import AppStoreSimulator

@Suite struct HTTPRouterTests {
    private var router: HTTPRouter {
        var router = HTTPRouter()
        router.add("POST", "/verifyReceipt") { _ in .text("verified") }
        router.add("GET", "/stats") { _ in .text("stats") }
        router.add("DELETE", "/stats") { _ in .text("reset") }
        return router
    }

    @Test func routesByMethodAndExactPath() throws {
        #expect(
            try router.handle(HTTPRequest(method: "POST", target: "/verifyReceipt?x=1")).body == Array("verified".utf8))
        #expect(try router.handle(HTTPRequest(method: "DELETE", target: "/stats")).body == Array("reset".utf8))
    }

    @Test func unknownPathIs404() throws {
        #expect(try router.handle(HTTPRequest(method: "POST", target: "/verifyReceipt/")).status == 404)
    }

    @Test func wrongMethodIs405WithAllow() throws {
        let response = try router.handle(HTTPRequest(method: "GET", target: "/verifyReceipt"))
        #expect(response.status == 405)
        #expect(response.headers.contains { $0.0 == "Allow" && $0.1 == "POST" })
        let stats = try router.handle(HTTPRequest(method: "PUT", target: "/stats"))
        #expect(stats.headers.contains { $0.0 == "Allow" && $0.1 == "DELETE, GET, HEAD" })
    }

    @Test func headFallsBackToGet() throws {
        #expect(try router.handle(HTTPRequest(method: "HEAD", target: "/stats")).status == 200)
        #expect(try router.handle(HTTPRequest(method: "HEAD", target: "/verifyReceipt")).status == 405)
    }
}
