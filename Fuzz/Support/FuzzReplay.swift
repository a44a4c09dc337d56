import Foundation

/// The replay driver shared by the fuzz targets when they are built without libFuzzer: saved inputs
/// (crashers, regressions, the seed corpus) go through the target's entry point again.
public enum FuzzReplay {
    /// Runs every file named in `arguments` (a folder stands for the files in it, sorted by name)
    /// through `entryPoint`, as libFuzzer would; a failing check stops the process. Prints how many
    /// inputs passed.
    /// - Parameters:
    ///   - target: the target's name, for messages.
    ///   - arguments: file and folder paths (the command line, usually).
    ///   - entryPoint: the target's `LLVMFuzzerTestOneInput`.
    public static func run(_ target: String, arguments: [String] = Array(CommandLine.arguments.dropFirst()),
                           _ entryPoint: (UnsafePointer<UInt8>, Int) -> CInt) {
        guard !arguments.isEmpty else {
            FileHandle.standardError.write(Data("usage: \(target) FILE-OR-FOLDER...\n".utf8))
            exit(2)
        }
        let files = expand(arguments)
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("\(target): cannot read \(file)\n".utf8))
                exit(1)
            }
            // libFuzzer never passes a null pointer, even for an empty input.
            let bytes = [UInt8](data) + [0]
            bytes.withUnsafeBufferPointer { _ = entryPoint($0.baseAddress!, data.count) }
        }
        print("\(target): \(files.count) inputs passed")
    }

    /// The files named, with each folder replaced by the regular files in it (not recursive), sorted.
    public static func expand(_ paths: [String]) -> [String] {
        paths.flatMap { path -> [String] in
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                return [path]
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.sorted().map { path + "/" + $0 }.filter { file in
                var isFolder: ObjCBool = false
                return FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) && !isFolder.boolValue
            }
        }
    }
}
