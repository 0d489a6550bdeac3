import JOSE
import Synchronization

/// The password hashers shared fairly between client addresses: at most ``perAddress`` password
/// checks of one address in flight at once (sign-ins: the App Services login and the hosted login
/// page; new passwords: a registration, `reset/call`, each kind in slots of its own as each has its
/// own hasher). One more is refused at once, never queued, so that one address delays another's
/// sign-in by at most one hash time however many requests it sends. A reset by token takes no
/// slot: a made-up token costs no hash, and the reset limits and the new-password budget bound it.
final class AddressSlots: Sendable {
    let perAddress: Int
    private let held = Mutex<[String: Int]>([:])

    init(perAddress: Int) {
        self.perAddress = perAddress
    }

    /// Takes a slot of `address`; `false` when it holds ``perAddress`` already (nothing taken then).
    func enter(_ address: String) -> Bool {
        held.withLock { held in
            let now = held[address, default: 0]
            guard now < perAddress else { return false }
            held[address] = now + 1
            return true
        }
    }

    /// Runs `work` in one of `address`'s slots: 429 `TooManyRequests` with `Retry-After: 1` at
    /// once when it has none left.
    func withSlot<T: Sendable>(of address: String, _ work: () async throws -> T) async throws -> T {
        guard enter(address) else {
            throw TokenError(.tooManyRequests, "this address has \(perAddress) password checks in flight already; try again in a second")
                .retrying(after: 1)
        }
        defer { leave(address) }
        return try await work()
    }

    /// Gives back a slot ``enter(_:)`` took.
    func leave(_ address: String) {
        held.withLock { held in
            let now = held[address, default: 0]
            held[address] = now <= 1 ? nil : now - 1
        }
    }
}

extension AuthServer {
    /// Runs `work` (a registration's or `reset/call`'s new password hash) in one of the client
    /// address's ``newPasswordSlots``: 429 `TooManyRequests` with `Retry-After: 1` at once when it
    /// has none left. Sign-ins take ``passwordSlots`` in ``UserpassLogin``.
    func withNewPasswordSlot<T: Sendable>(_ context: AuthRequestContext, _ work: () async throws -> T) async throws -> T {
        try await newPasswordSlots.withSlot(of: context.clientAddress ?? "", work)
    }
}
