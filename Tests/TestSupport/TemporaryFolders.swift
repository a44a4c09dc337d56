import Foundation

/// Folders for tests that must outlive the test that made them: a font under a private path stays
/// open in the process-wide face table, a store file stays open in its pool. Each is made inside one
/// folder per test process, which is removed when the process exits, so repeated runs leave nothing
/// behind in the temporary directory.
///
/// Thread safety: `make` may be called from any thread.
public enum TemporaryFolders {
    /// The test process's folder, made (world-writable, for tests that run a tool as another user) and
    /// registered for removal at exit on first use.
    private static let root: String = {
        let path = NSTemporaryDirectory() + "textmeasure-tests-\(getpid())"
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o777])
        atexit { TemporaryFolders.removeRoot() }
        return path
    }()

    /// Removes the process's folder and everything in it.
    private static func removeRoot() {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// A new empty folder, named `prefix` and a fresh UUID, removed with everything in it when the
    /// process exits.
    /// - Parameters:
    ///   - prefix: the start of the folder's name.
    ///   - permissions: the folder's POSIX permissions.
    /// - Throws: the file manager's error if the folder cannot be made.
    public static func make(prefix: String, permissions: Int = 0o755) throws -> String {
        let path = root + "/\(prefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: permissions])
        return path
    }
}
