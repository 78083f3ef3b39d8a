import Foundation

/// A value that is only ever read or written under a lock.
///
/// Why not `Synchronization.Mutex`: on Linux it synchronises through futex calls and atomics
/// inside the uninstrumented standard library, which ThreadSanitizer cannot see, so every
/// access guarded by it was reported as a race. `NSLock` is a pthread mutex, which
/// ThreadSanitizer understands, so the concurrency test's verdict means something.
/// Keep no function values in it: `withLock` hands the value out `inout` through a generic
/// signature, so a stored closure comes back re-abstracted and wrapped in one more thunk
/// on every call, and calling it grows slower and deeper over time.
/// `@unchecked Sendable`: `value` is touched only inside `withLock`.
package final class Locked<Value>: @unchecked Sendable {
    /// Unchecked exclusivity: the lock already makes every access exclusive (a nested
    /// `withLock` would deadlock before it could overlap), and the runtime's check was a
    /// `swift_beginAccess`/`swift_endAccess` pair per call, 3 % of the fleet's writer.
    @exclusivity(unchecked) private var value: Value
    private let lock = NSLock()

    package init(_ value: Value) { self.value = value }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Runs `body` under the lock if nobody holds it now, without waiting; nil when somebody
    /// does. For work that whoever holds the lock will do anyway.
    package func withLockIfAvailable<R>(_ body: (inout Value) throws -> R) rethrows -> R? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return try body(&value)
    }
}
