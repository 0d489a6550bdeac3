import Hummingbird

@testable import AuthServer

extension RouteDescription {
    /// For the OpenAPI tests: a row for a route added with `method`, `path` and the table's bearer step (`nil`: none),
    /// named by ``handlerName(_:_:)``.
    init(_ method: HTTPRequest.Method, _ path: String, bearer: Bearer) {
        self.init(method: method, path: path, bearer: bearer, throttles: [], handler: Self.handlerName(method, path))
    }

    /// A handler name made of the method and the path's words, the App Services base left out:
    /// `POST /api/client/v2.0/auth/session` is `postAuthSession`, `GET /app/:app/reset` `getAppAppReset`.
    static func handlerName(_ method: HTTPRequest.Method, _ path: String) -> String {
        let rest = path.hasPrefix(RouteTable.base) ? String(path.dropFirst(RouteTable.base.count)) : path
        let words = rest.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map { $0.prefix(1).uppercased() + $0.dropFirst() }
        return method.rawValue.lowercased() + words.joined()
    }
}
