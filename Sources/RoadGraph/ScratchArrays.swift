/// Resetting the scratch arrays that searches keep from call to call.
///
/// Why not `removeAll(keepingCapacity:)` then `append(contentsOf: repeatElement(…))`: both
/// take the generic replace path, a few hundred instructions a call, which for the
/// matcher's handful of cells a step cost more than the writes themselves (a tenth of a
/// trace's instructions at σ 5 m every 5 s, counted with callgrind).
extension Array {
    /// Sets the first `n` elements to `value`, growing the array to `n` elements when it is
    /// shorter and never shrinking it: readers look at the first `n` only.
    @inline(__always)
    mutating func fillPrefix(_ n: Int, with value: Element) {
        grow(to: n, with: value)
        withUnsafeMutableBufferPointer { b in
            for i in 0..<n { b[i] = value }
        }
    }

    /// Grows the array to `n` elements, the new ones `value`; a longer array is left alone.
    @inline(__always)
    mutating func grow(to n: Int, with value: Element) {
        if count < n { append(contentsOf: repeatElement(value, count: n - count)) }
    }
}
