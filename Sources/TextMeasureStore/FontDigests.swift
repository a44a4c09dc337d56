import TextMeasure

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SHA-256 digests of font files' contents, so that a store's keys name fonts by what they hold, not
/// where they lie: the same file copied to another machine or path finds the same heights, and a file
/// replaced in place (another version of the font) finds none.
///
/// Each file is read and digested once per process while its size, modification time and inode stay
/// the same (checked with one `stat` per cascade, when a store first sees it).
///
/// Thread safety: process-wide table behind a lock; digesting happens outside it.
enum FontDigests {
    private struct FileState: Hashable {
        var path: String
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var modifiedNanoseconds: Int64
    }

    private static let digests = Locked<[FileState: [UInt8]]>([:])

    /// The digest of a cascade: its faces' file digests and face indexes, in order.
    ///
    /// - Parameter cascade: The fonts.
    /// - Returns: 32 bytes.
    /// - Throws: ``HeightStoreError/unreadableFont(path:reason:)`` when a file cannot be read now.
    /// - Complexity: Reads and digests each file not digested before (about 25 MB for the bundled
    ///   fonts); a `stat` per file otherwise.
    static func digest(of cascade: FontCascade) throws(HeightStoreError) -> [UInt8] {
        var hasher = SHA256()
        hasher.update("textmeasure-fonts-1".utf8)
        for face in cascade.fonts {
            hasher.update(try digest(ofFile: face.path))
            hasher.update(integer: Int64(face.faceIndex))
        }
        return hasher.finalize()
    }

    /// The digest of one file's contents.
    static func digest(ofFile path: String) throws(HeightStoreError) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .unreadableFont(path: path, reason: String(cString: strerror(errno)))
        }
        let state = FileState(path: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                              size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec),
                              modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
        if let known = digests.withLock({ $0[state] }) { return known }
        let digest = try readAndDigest(path)
        digests.withLock { $0[state] = digest }
        return digest
    }

    private static func readAndDigest(_ path: String) throws(HeightStoreError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadableFont(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadableFont(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        return hasher.finalize()
    }
}
