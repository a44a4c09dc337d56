import Foundation
import TestSupport
import Testing

/// The pictures' samples, one per script group, from `Tests/Fixtures/render/samples.tsv` (name, width,
/// text; tab-separated): the same file `scripts/render-examples` draws the goldens and the README's
/// pictures from.
struct RenderSample: CustomTestStringConvertible, Sendable {
    var name: String
    var width: Double
    var text: String

    var testDescription: String { name }

    static let folder = packageRoot() + "/Tests/Fixtures/render"

    /// The golden picture's path: drawn at scale 1 in the default style.
    var goldenPath: String { Self.folder + "/\(name).png" }

    static let all: [RenderSample] = {
        let contents = (try? String(contentsOfFile: folder + "/samples.tsv", encoding: .utf8)) ?? ""
        return contents.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let width = Double(fields[1]) else { return nil }
            return RenderSample(name: String(fields[0]), width: width, text: String(fields[2]))
        }
    }()
}
