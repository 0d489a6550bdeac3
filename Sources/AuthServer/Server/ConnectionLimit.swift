import NIOCore
import Synchronization

/// `connections_per_address`: how many connections each client address holds open, shared by
/// every connection's ``ConnectionLimitHandler``. A connection past the bound is closed as it is
/// accepted, before a byte of it is read, so that one address cannot take every connection the
/// process can hold (each idle one waits up to `idle_timeout`, a receiving one `body_timeout`).
final class ConnectionCounter: Sendable {
    let limit: Int
    /// Peers exempt from the bound (the trusted proxies, whose connections carry many clients).
    let exempt: @Sendable (SocketAddress) -> Bool
    private let open = Mutex<[String: Int]>([:])

    init(limit: Int, exempt: @escaping @Sendable (SocketAddress) -> Bool = { _ in false }) {
        self.limit = limit
        self.exempt = exempt
    }

    /// Counts a connection from `key`; `false` (nothing counted) when the address has `limit` open.
    func open(_ key: String) -> Bool {
        open.withLock { all in
            let n = all[key, default: 0]
            guard n < limit else { return false }
            all[key] = n + 1
            return true
        }
    }

    /// Gives back what ``open(_:)`` counted.
    func close(_ key: String) {
        open.withLock { all in
            let n = all[key, default: 1] - 1
            all[key] = n > 0 ? n : nil
        }
    }

    /// Connections open from `key` now.
    func count(_ key: String) -> Int { open.withLock { $0[key, default: 0] } }

    /// A new handler for one connection's pipeline.
    func handler() -> ConnectionLimitHandler { ConnectionLimitHandler(counter: self) }
}

/// Counts its connection under the peer's address key while the connection is open.
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    let counter: ConnectionCounter
    /// The key counted, once counted.
    private var counted: String?
    private var checked = false

    init(counter: ConnectionCounter) {
        self.counter = counter
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { check(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        check(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    private func check(_ context: ChannelHandlerContext) {
        guard !checked else { return }
        checked = true
        guard let peer = context.channel.remoteAddress, !counter.exempt(peer) else { return }
        let key = ClientAddress.key(peer.ipAddress ?? "")
        if counter.open(key) {
            counted = key
        } else {
            context.close(promise: nil)
        }
    }

    private func release() {
        if let key = counted { counter.close(key) }
        counted = nil
    }
}
