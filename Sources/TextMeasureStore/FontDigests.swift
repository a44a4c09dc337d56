import TextMeasureSupport
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
/// the same (one `stat` per file when a store first sees a cascade). A ``HeightStore`` also keeps the
/// digests in its file under the same condition, as Git's index does, so a later process does not
/// read the fonts again.
///
/// Thread safety: process-wide table behind a lock; digesting happens outside it.
enum FontDigests {
    /// What identifies a file's current contents without reading them.
    struct FileState: Hashable, Sendable {
        var path: String
        var device: Int64
        var inode: Int64
        var size: Int64
        var modified: Int64
        var modifiedNanoseconds: Int64
    }

    private static let digests = Locked<[FileState: [UInt8]]>([:])

    /// The digest of a cascade from its files' digests: each file's digest and face index, in order.
    ///
    /// - Parameter files: The files' digests, primary first, with their face indexes.
    /// - Returns: 32 bytes.
    static func digest(ofCascade files: [(digest: [UInt8], faceIndex: Int)]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update("textmeasure-fonts-1".utf8)
        for file in files {
            hasher.update(file.digest)
            hasher.update(integer: Int64(file.faceIndex))
        }
        return hasher.finalize()
    }

    /// The digest of a cascade, reading each file not digested before in this process.
    ///
    /// - Parameter cascade: The fonts.
    /// - Returns: 32 bytes.
    /// - Throws: ``HeightStoreError/unreadableFont(path:reason:)`` when a file cannot be read now.
    /// - Complexity: Reads and digests each file not digested before (about 22 MB for the bundled
    ///   fonts); a `stat` per file otherwise.
    static func digest(of cascade: FontCascade) throws(HeightStoreError) -> [UInt8] {
        var files: [(digest: [UInt8], faceIndex: Int)] = []
        for face in cascade.fonts {
            files.append((try digest(ofFile: try state(ofFile: face.path)), face.faceIndex))
        }
        return digest(ofCascade: files)
    }

    /// The file's identity now (`stat`).
    static func state(ofFile path: String) throws(HeightStoreError) -> FileState {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .unreadableFont(path: path, reason: String(cString: strerror(errno)))
        }
        return FileState(path: path, device: Int64(truncatingIfNeeded: info.st_dev),
                         inode: Int64(truncatingIfNeeded: info.st_ino), size: Int64(info.st_size),
                         modified: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
    }

    /// The digest of one file's contents, known in this process or read now.
    static func digest(ofFile state: FileState) throws(HeightStoreError) -> [UInt8] {
        if let known = digests.withLock({ $0[state] }) { return known }
        let digest = try readAndDigest(state.path)
        remember(digest, for: state)
        return digest
    }

    /// The digest in this process's table, if known.
    static func known(_ state: FileState) -> [UInt8]? {
        digests.withLock { $0[state] }
    }

    /// Adds a digest (read from a store) to this process's table.
    static func remember(_ digest: [UInt8], for state: FileState) {
        digests.withLock { $0[state] = digest }
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
