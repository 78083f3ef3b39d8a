import Crypto
import Foundation
import _CryptoExtras

/// scrypt password hashing: the only form in which a password is stored.
///
/// A stored hash is `scrypt$<log2 N>$<r>$<p>$<salt>$<key>` with the salt (16 random bytes)
/// and the key (64 bytes, 512 bits as 004 asks) in base64. The parameters travel with the
/// hash, so that they can be raised later: a login with a hash made with weaker ones hashes the
/// password again with the current ones.
///
/// `Sendable`: a value of three integers.
public struct PasswordHasher: Sendable, Equatable {
    /// log2 of scrypt's cost N.
    public let logN: Int
    /// scrypt's block size r.
    public let blockSize: Int
    /// scrypt's parallelism p.
    public let parallelism: Int

    /// N = 2^17, r = 8, p = 1: OWASP's recommendation for scrypt, and 128 MiB per hash.
    public static let standard = PasswordHasher(logN: 17, blockSize: 8, parallelism: 1)

    /// Cheap parameters for tests and the demo's many accounts (N = 2^10); never for real
    /// passwords.
    package static let fastForTests = PasswordHasher(logN: 10, blockSize: 8, parallelism: 1)

    static let keyBytes = 64
    static let saltBytes = 16

    package init(logN: Int, blockSize: Int, parallelism: Int) {
        self.logN = logN
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    /// The stored form of `password` with a fresh salt.
    package func hash(_ password: String) throws -> String {
        var salt = [UInt8](repeating: 0, count: Self.saltBytes)
        var rng = SystemRandomNumberGenerator()
        for i in salt.indices { salt[i] = rng.next() }
        let key = try derive(password, salt: salt, logN: logN, r: blockSize, p: parallelism)
        return "scrypt$\(logN)$\(blockSize)$\(parallelism)$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
    }

    /// Whether `password` matches `stored`, compared in constant time. A malformed stored
    /// hash matches nothing.
    package func verify(_ password: String, against stored: String) -> Bool {
        guard let parsed = Self.parse(stored),
              let key = try? derive(password, salt: parsed.salt, logN: parsed.logN, r: parsed.r, p: parsed.p)
        else { return false }
        return constantTimeEqual(key, parsed.key)
    }

    /// Whether `stored` was made with weaker parameters than these.
    package func needsUpgrade(_ stored: String) -> Bool {
        guard let parsed = Self.parse(stored) else { return true }
        return parsed.logN < logN || parsed.r < blockSize || parsed.p < parallelism || parsed.key.count < Self.keyBytes
    }

    private static func parse(_ stored: String) -> (logN: Int, r: Int, p: Int, salt: [UInt8], key: [UInt8])? {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "scrypt",
              let logN = Int(parts[1]), (1...22).contains(logN),
              let r = Int(parts[2]), (1...32).contains(r),
              let p = Int(parts[3]), (1...16).contains(p),
              let salt = Data(base64Encoded: String(parts[4])), !salt.isEmpty,
              let key = Data(base64Encoded: String(parts[5])), !key.isEmpty
        else { return nil }
        return (logN, r, p, [UInt8](salt), [UInt8](key))
    }

    /// At most this many hashes run at once in the process.
    ///
    /// Why: one hash with the standard parameters takes 128 MiB, so a burst of logins must
    /// queue rather than take the machine's memory; the others wait on a Dispatch worker.
    static let concurrentHashes = DispatchSemaphore(value: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private func derive(_ password: String, salt: [UInt8], logN: Int, r: Int, p: Int) throws -> [UInt8] {
        // BoringSSL's scrypt refuses an empty password; the services never hash one (the
        // policy asks for 8 characters), but a stored hash is checked against any input.
        let bytes = Array(password.utf8)
        guard !bytes.isEmpty else { throw PasswordHashError.emptyPassword }
        Self.concurrentHashes.wait()
        defer { Self.concurrentHashes.signal() }
        let key = try KDF.Scrypt.deriveKey(from: bytes, salt: salt, outputByteCount: Self.keyBytes,
                                           rounds: 1 << logN, blockSize: r, parallelism: p)
        return key.withUnsafeBytes { Array($0) }
    }
}

enum PasswordHashError: Error { case emptyPassword }

/// Whether two byte strings are equal, in a time that depends only on their lengths.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for i in a.indices { difference |= a[i] ^ b[i] }
    return difference == 0
}

/// The password rules (000 UC01, raised as NIST SP 800-63B asks; 004 for admins).
public enum PasswordPolicy {
    /// The fewest characters of a password.
    public static let minimumLength = 8
    /// The fewest characters of an admin's password (004).
    public static let minimumAdminLength = 10
    /// The most characters of a password: long passphrases fit, and hashing stays bounded.
    public static let maximumLength = 128

    /// The common passwords refused, lower-cased: SecLists' 10,000 most common (see
    /// `CommonPasswords/PROVENANCE.md`), embedded at build time from the text file and read
    /// once, on first use.
    package static let commonPasswords: Set<String> = Set(
        String(decoding: PackageResources.common_passwords_txt, as: UTF8.self).split(whereSeparator: \.isNewline).map { $0.lowercased() })

    /// Checks `password` and its confirmation for a user of `role`.
    /// - Throws: ``ServiceError/invalid(field:reason:)`` naming `password` or
    ///   `confirmation`.
    static func check(_ password: String, confirmation: String, role: Role) throws(ServiceError) {
        let length = password.unicodeScalars.count
        let minimum = role == .admin ? minimumAdminLength : minimumLength
        guard length >= minimum else {
            throw .invalid(field: "password", reason: "must be at least \(minimum) characters")
        }
        guard length <= maximumLength else {
            throw .invalid(field: "password", reason: "must be at most \(maximumLength) characters")
        }
        guard !password.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalid(field: "password", reason: "must not contain control characters")
        }
        guard !commonPasswords.contains(password.lowercased()) else {
            throw .invalid(field: "password", reason: "is one of the most common passwords; choose another")
        }
        if role == .admin {
            let scalars = password.unicodeScalars
            let letters = scalars.contains { $0.properties.isAlphabetic }
            let digits = scalars.contains { $0.properties.numericType != nil }
            let symbols = scalars.contains { !$0.properties.isAlphabetic && $0.properties.numericType == nil && !$0.properties.isWhitespace }
            guard letters && digits && symbols else {
                throw .invalid(field: "password", reason: "an admin password needs letters, digits and symbols")
            }
        }
        guard password == confirmation else {
            throw .invalid(field: "confirmation", reason: "does not match the password")
        }
    }
}
