/// Workspaces for many threads: one is taken for a call and given back, so a workspace
/// that is costly to make (a router's search arrays, sized to the road network) is made
/// once per thread that needs it at the same time, not once per call.
///
/// `Sendable`: the idle workspaces sit in a `Locked`, and a workspace taken out is used by
/// one caller at a time; `make` is immutable and `Sendable`. The workspace itself need not
/// be `Sendable`.
package final class WorkspacePool<Workspace>: Sendable {
    private let idle = Locked<[Workspace]>([])
    private let make: @Sendable () -> Workspace

    /// A pool that makes a workspace with `make` whenever none is idle.
    package init(make: @escaping @Sendable () -> Workspace) { self.make = make }

    /// Runs `body` with a workspace of its own.
    package func with<T>(_ body: (Workspace) throws -> T) rethrows -> T {
        let workspace = idle.withLock { $0.popLast() } ?? make()
        defer { idle.withLock { $0.append(workspace) } }
        return try body(workspace)
    }
}
