import Essentials
import Fleet
import Foundation
import GeoJSON
import Hummingbird
import WayfareAPI
import ServiceLifecycle
import Services

/// Offers pushed to driver apps as server-sent events (`GET /v1/driver/offers/stream`), so
/// that a driver sees an offer the moment it is made, not at the next poll: the offer
/// timeout is 15 seconds, and a 5-second poll would spend a third of it.
///
/// Why server-sent events rather than a WebSocket: the traffic is one way (answers go back
/// as ordinary `POST`s with their idempotency and errors), SSE is plain HTTP that proxies
/// and the browser's `EventSource` understand, and it reconnects by itself.
///
/// `Sendable`: the subscribers sit behind a lock; each is an `AsyncStream` continuation,
/// which is `Sendable`.
final class OfferHub: Sendable {
    enum Event: Sendable { case offer(DriverOffer), heartbeat }

    let subscribers = Locked<[Int64: [UInt64: AsyncStream<Event>.Continuation]]>([:])
    let counter = Locked<UInt64>(0)
    let closed = Locked(false)

    /// A stream of the events of `driver`'s app, and the id to unsubscribe with; nil when the
    /// driver already has `limit` streams open.
    func subscribe(_ driver: Int64, limit: Int = .max) -> (UInt64, AsyncStream<Event>)? {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(100))
        let id = counter.withLock { $0 += 1; return $0 }
        if closed.withLock({ $0 }) {
            continuation.finish()
        } else {
            let taken = subscribers.withLock { s -> Bool in
                guard (s[driver]?.count ?? 0) < limit else { return false }
                s[driver, default: [:]][id] = continuation
                return true
            }
            guard taken else { return nil }
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(driver, id) }
        return (id, stream)
    }

    func unsubscribe(_ driver: Int64, _ id: UInt64) {
        subscribers.withLock { s in
            s[driver]?[id] = nil
            if s[driver]?.isEmpty == true { s[driver] = nil }
        }
    }

    /// Sends `offer` to every open stream of its driver.
    func publish(_ offer: DriverOffer) {
        for c in subscribers.withLock({ Array(($0[offer.driver] ?? [:]).values) }) { c.yield(.offer(offer)) }
    }

    /// A comment line to every stream: keeps proxies from closing idle connections and finds
    /// the apps that went away.
    func heartbeat() {
        for c in subscribers.withLock({ $0.values.flatMap(\.values) }) { c.yield(.heartbeat) }
    }

    /// How many streams are open.
    var count: Int { subscribers.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Ends every stream, now and for later subscribers (the server is stopping: a stream
    /// is a request that would otherwise never finish).
    func closeAll() {
        closed.withLock { $0 = true }
        for c in subscribers.withLock({ s in defer { s = [:] }; return s.values.flatMap(\.values) }) { c.finish() }
    }
}

extension WayfareServer {
    /// `GET /v1/driver/offers/stream` for `driver` → text/event-stream: the offers waiting
    /// now, then each new one as `event: offer` with the offer's JSON, and a comment every
    /// ~16 s.
    func offerStream(driver: Int64) throws -> Response {
        guard let (_, stream) = offerHub.subscribe(driver, limit: guards.offerStreamsPerDriver) else {
            throw RateLimiter.refusal(16, "\(guards.offerStreamsPerDriver) offer streams are open for this driver already")
        }
        let waiting = bookings.offers(for: driver)
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        let hub = offerHub
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": offers for driver \(driver)\n\n"))
            for offer in waiting { try await writer.write(ByteBuffer(string: Self.event(offer))) }
            // The server waits for its requests when it stops, and a stream would never
            // end: the stop (which reaches this task from the server's own) ends them all.
            try await withGracefulShutdownHandler {
                for await event in stream {
                    switch event {
                    case .offer(let offer): try await writer.write(ByteBuffer(string: Self.event(offer)))
                    case .heartbeat: try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                    }
                }
            } onGracefulShutdown: {
                hub.closeAll()
            }
            try await writer.finish(nil)
        })
    }

    static func event(_ offer: DriverOffer) -> String {
        "event: offer\nid: \(offer.id)\ndata: \(WireEncoder.string(OfferAnswer(offer)))\n\n"
    }

    /// Ends the offer streams (the server is stopping).
    public func closeStreams() { offerHub.closeAll() }

    /// How many offer streams are open.
    package var openOfferStreams: Int { offerHub.count }
}
