import WayfareAPI

/// Prints `value` as one line of JSON: the commands' reports. Written by the API's encoder
/// (the project's one way of writing JSON), with the properties' names in snake case
/// (`p50Us` as `p50_us`) and an absent optional as `null`.
func printJSONLine(_ value: some Encodable) {
    print(WireEncoder.string(value, keys: .snakeCase))
}

/// `x` to `places` decimals, for a report (a non-finite value stays as it is; the encoder
/// writes it as `null`).
func rounded(_ x: Double, _ places: Int) -> Double {
    guard x.isFinite else { return x }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    return (x * scale).rounded() / scale
}
