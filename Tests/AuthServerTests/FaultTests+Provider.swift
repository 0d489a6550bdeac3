import Foundation
import ProviderStandIn
import Testing

extension FaultTests {
    @Test("a provider that hangs: its logins fail in provider_timeout with 503 ServiceUnavailable; anonymous logins and refreshes stay fast")
    func hangingProvider() async throws {
        let standIn = try await ProviderStandIn.start()
        do {
            standIn.setBehavior(.stall, for: "/oauth2/v3/certs")  // Google's JWKS never answers
            let apps = """
                {"myapp":{"refresh_rotation":true,"reuse_grace":"5m","providers":{"anon-user":{},
                  "oauth2-google":{"client_ids":["\(standIn.settings.googleClientID)"]}}}}
                """
            let extra = """
                "provider_timeout": "2s", "provider_urls": {"google_jwks": "\(standIn.googleJWKSURL)"},
                "limits":{"login_per_address":"100000/5m","anonymous_per_address":"100000/1h"},
                """
            try await LiveServer.with(.sqlite, apps: apps, extra: extra) { live in
                let google = LiveServer.base + "/app/myapp/auth/providers/oauth2-google/login"
                let body = #"{"id_token":"\#(try standIn.idToken("google"))"}"#
                // Five Google logins hang on the JWKS while the fast load (two clients) runs beside
                // them: seven connections, within the test's HTTP client's eight per host.
                let hanging = (0..<5).map { _ in
                    Task { () -> (LiveServer.Answer, Duration) in
                        let start = ContinuousClock.now
                        let answer = try await live.call(.POST, google, body: body)
                        return (answer, ContinuousClock.now - start)
                    }
                }
                #expect(await FaultLoad.eventually(within: 10) { standIn.requestCount(path: "/oauth2/v3/certs") >= 1 })
                let load = FaultLoad()
                let fast = Task { await load.run(servers: [live.baseURL], clients: 2, refreshes: 2, endOnLoss: false) }
                // The load while the Google logins are certainly still in flight (they take 2 s).
                try await Task.sleep(for: .milliseconds(1500))
                load.stop()
                await fast.value

                let answers = load.answers
                #expect(answers.count >= 10, "only \(answers.count) fast requests in 1.5 s")
                #expect(answers.allSatisfy { [200, 201].contains($0.status) }, "\(Set(answers.map(\.status)))")
                let p99 = quantile(answers.map(\.elapsed), 0.99)
                // Generous for a busy machine under AddressSanitizer; held up behind the provider would be ~2 s.
                #expect(p99 < .seconds(1), "p99 \(p99.seconds) s over \(answers.count) requests beside a hanging provider")

                for task in hanging {
                    let (answer, elapsed) = try await task.value
                    #expect(answer.status == 503 && answer.errorCode == "ServiceUnavailable", "\(answer.status) \(answer.body)")
                    #expect(answer["error"]?.contains("did not answer within 2") == true, "\(answer.body)")
                    // provider_timeout, not the 5 s default, and no pile-up behind each other.
                    #expect(elapsed >= .seconds(1.9) && elapsed < .milliseconds(4500), "a hanging login took \(elapsed.seconds) s")
                }
                let broken = try await load.verifySessions(base: live.baseURL)
                #expect(broken.isEmpty, "\(broken.prefix(5))")
            }
            try await standIn.shutdown()
        } catch {
            try? await standIn.shutdown()
            throw error
        }
    }
}
