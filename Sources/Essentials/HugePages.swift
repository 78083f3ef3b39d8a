#if canImport(Glibc)
import Glibc
#endif

/// Large arrays on huge pages (2 MB on x86-64 Linux) rather than 4 kB ones.
///
/// Why: a route on a metropolitan graph reads a few tens of thousands of places scattered
/// over hundreds of megabytes (its arcs, its landmark bounds, its labels). With 4 kB pages
/// each read also misses the address cache (the TLB) and walks the page tables; 2 MB pages
/// cover the whole graph with a few hundred entries. On the 1M grid, with glibc's
/// `glibc.malloc.hugetlb=1` giving every allocation huge pages, distance routes took 0.88×
/// and time routes 0.92× their time (docs/benchmarks.md, "Large arrays on huge pages").
///
/// Linux gives huge pages only where asked (`madvise(MADV_HUGEPAGE)`) on machines set to
/// `madvise` (Debian's default), and only to pages not yet touched: so an array is advised
/// between its allocation and its first write. Elsewhere, and where the kernel declines,
/// nothing changes but speed.
@usableFromInline package enum HugePages {
    /// Arrays smaller than this are left alone: they span at most a huge page or two.
    @usableFromInline package static let threshold = 4 << 20

    #if os(Linux)
    /// The kernel's page size: `madvise` takes whole pages (4 kB on x86-64, up to 64 kB on
    /// some ARM kernels).
    @usableFromInline static let pageSize = UInt(bitPattern: max(4096, sysconf(Int32(_SC_PAGESIZE))))
    #endif

    /// Asks the kernel to back the whole pages of `byteCount` bytes at `start` with huge
    /// pages where it can. Call before the memory is first written; a hint, never an error.
    @usableFromInline package static func advise(_ start: UnsafeMutableRawPointer?, byteCount: Int) {
        #if os(Linux)
        guard let start, byteCount >= threshold else { return }
        let page = pageSize
        let first = (UInt(bitPattern: start) + page - 1) & ~(page - 1)
        let end = (UInt(bitPattern: start) + UInt(byteCount)) & ~(page - 1)
        guard end > first, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(aligned, Int(end - first), MADV_HUGEPAGE)
        #endif
    }
}

extension Array where Element: BitwiseCopyable {
    /// `count` copies of `value`, on huge pages where the kernel grants them
    /// (``HugePages``): for the large arrays a hot loop reads at random. Inlinable, so
    /// that the fill is specialised for `Element` (filled through witness tables, Monaco's
    /// 400 routes and their load took 445,000 more instructions).
    @inlinable package init(onHugePages value: Element, count: Int) {
        // A small array is made the ordinary way. Why not through the path below: an empty
        // one made there writes its count into the stdlib's one shared empty array, a race
        // ThreadSanitizer reports when two routers search at once (each search makes empty
        // sides; harmless, but a race).
        let (bytes, overflow) = count.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        guard !overflow, bytes >= HugePages.threshold else {
            self.init(repeating: value, count: count)
            return
        }
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            HugePages.advise(UnsafeMutableRawPointer(buffer.baseAddress), byteCount: bytes)
            buffer.initialize(repeating: value)
            initialized = count
        }
    }
}
