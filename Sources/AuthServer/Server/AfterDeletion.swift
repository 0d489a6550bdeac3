import Foundation
import Identity
import JOSE
import Logging

extension AuthServer {
    /// What follows a deletion without holding up the answer: Apple tokens revoked (retried a
    /// few times), the `user_deleted` webhook told.
    func afterDeletion(userID: String, app: AppRuntime, providerTokens: [(provider: String, token: String)]) {
        let apple = providers[app.config.id]?.apple
        let logger = self.logger
        for (provider, token) in providerTokens where provider == "oauth2-apple" {
            guard let apple else { continue }
            Task {
                for attempt in 1...5 {
                    do {
                        try await apple.revoke(token: token)
                        return
                    } catch {
                        logger.warning("apple token revocation failed", metadata: ["attempt": .stringConvertible(attempt), "app": .string(app.config.id)])
                        try? await Task.sleep(for: .seconds(attempt * attempt))
                    }
                }
            }
        }
        if let hook = app.config.userDeletedWebhook {
            let transport = self.transport
            Task {
                let body = JSONValue.object(["type": "user_deleted", "app": .string(app.config.id), "user_id": .string(userID)]).jsonBytes
                let request = HTTPRequest(method: "POST", url: hook, headers: [("Content-Type", "application/json")], body: body)
                if (try? await transport.send(request)) == nil {
                    logger.warning("user_deleted webhook failed", metadata: ["app": .string(app.config.id)])
                }
            }
        }
    }
}
