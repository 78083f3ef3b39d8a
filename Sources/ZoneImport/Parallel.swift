import Foundation
import Zones

/// Runs `background` on a second thread while `foreground` runs on this one, and returns
/// both results. Used by the import to overlap GEOS work on the machine's two cores.
///
/// Each side must build its own GEOS context: only `Sendable` values cross. The result box
/// is `@unchecked Sendable` because the semaphore orders its one write before its one read.
func inParallel<A: Sendable, B>(_ background: @escaping @Sendable () throws -> A,
                                _ foreground: () throws -> B) throws -> (A, B) {
    let box = ResultBox<A>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.result = Result { try background() }
        done.signal()
    }
    thread.stackSize = 16 << 20
    thread.start()
    let b: Result<B, any Error> = Result { try foreground() }
    done.wait()
    return (try box.result!.get(), try b.get())
}

/// One result handed from a worker thread to the waiting one (see `inParallel`).
private final class ResultBox<A>: @unchecked Sendable {
    var result: Result<A, any Error>?
}
