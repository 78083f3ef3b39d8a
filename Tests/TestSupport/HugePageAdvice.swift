import Foundation

/// What the kernel was told about memory: the tests' check that large arrays were advised
/// onto huge pages, read from `/proc/self/smaps` (written apart from `HugePages`, which only
/// calls `madvise`).
public enum HugePageAdvice {
    /// Whether this kernel has transparent huge pages at all (without them the advice is
    /// refused and the check cannot be made).
    public static var isSupported: Bool {
        FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled")
            && FileManager.default.fileExists(atPath: "/proc/self/smaps")
    }

    /// Whether the mapping holding `address` is advised for huge pages (`hg` among its
    /// `VmFlags`); nil when no mapping holds it.
    public static func isAdvised(_ address: UnsafeRawPointer) -> Bool? {
        // Read to its end: a file under /proc says its size is 0.
        guard let file = FileHandle(forReadingAtPath: "/proc/self/smaps"), let data = try? file.readToEnd(),
              let smaps = String(data: data, encoding: .utf8) else { return nil }
        try? file.close()
        let a = UInt(bitPattern: address)
        var inside = false
        for line in smaps.split(separator: "\n") {
            // A mapping starts with "start-end perms …"; its fields follow, VmFlags last.
            if let dash = line.firstIndex(of: "-"), let space = line.firstIndex(of: " "), dash < space,
               let start = UInt(line[..<dash], radix: 16), let end = UInt(line[line.index(after: dash)..<space], radix: 16) {
                inside = start <= a && a < end
            } else if inside, line.hasPrefix("VmFlags:") {
                return line.split(separator: " ").contains("hg")
            }
        }
        return nil
    }
}
