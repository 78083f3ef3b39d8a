/// The `p`-th quantile of `sorted` by the nearest-rank rule: the smallest value with at
/// least `p` of the values at or below it (`p` in 0...1; the median of an even count is the
/// lower middle value). Nil when `sorted` is empty.
///
/// The one definition for every summary the project prints (benchmarks, simulations,
/// dispatch statistics), so that a p99 means the same everywhere.
public func percentile(_ p: Double, ofSorted sorted: [Double]) -> Double? {
    guard !sorted.isEmpty else { return nil }
    let rank = (Double(sorted.count) * min(max(p, 0), 1)).rounded(.up)
    return sorted[min(sorted.count - 1, max(0, Int(rank) - 1))]
}
