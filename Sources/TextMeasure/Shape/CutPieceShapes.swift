/// The shapes of the pieces of over-long grapheme clusters (see ``Itemizer/maximumScalars``), remembered
/// while one text is prepared, so that a cluster of thousands of repeated characters is shaped once
/// per distinct piece rather than once per piece.
///
/// Such pieces are runs of their own that the shaped-piece cache does not take (they are longer than
/// its keys, and shaped without a dotted circle for a leading mark). Without this, a megabyte of
/// "👩‍" repeated is slow in HarfBuzz 6.0 for every emoji: the color font's ligature set for 👩 and
/// 👨 holds hundreds of sequences, tried one by one.
///
/// Thread safety: part of a ``ShapeScratch``, used by one thread at a time.
struct CutPieceShapes {
    /// A piece: its font (index in the cascade), script and bytes.
    private struct Key: Hashable {
        var font: Int
        var script: UInt32
        var bytes: [UInt8]
    }

    /// One HarfBuzz cluster of a shaped piece: its offset in the piece, advance and break adjustment.
    private struct ShapedCluster {
        var offset: Int
        var advance: Int
        var breakAdjust: Int32
    }

    private var shapes: [Key: [ShapedCluster]] = [:]
    /// The most pieces remembered; past this the memory starts over.
    private static let capacity = 256

    /// Forgets every piece (fonts are indexes into one preparation's cascade at one scale).
    mutating func removeAll() {
        if !shapes.isEmpty { shapes.removeAll() }
    }

    /// Shapes `run` (a piece of a cut cluster), or writes the shape it had before, to `output`. Pieces
    /// in a joining script, whose shaping reads the text around them, are always shaped.
    mutating func shape(_ run: Run, of bytes: UnsafeBufferPointer<UInt8>, font: OpaquePointer,
                        scratch: ShapeScratch, output: Shaper.Output) {
        guard !ShapeCache.readsContext(run.script) else {
            Shaper.shape(run, of: bytes, font: font, scratch: scratch, output: output)
            return
        }
        let key = Key(font: run.font, script: run.script.rawValue, bytes: Array(bytes[run.start..<run.end]))
        if let clusters = shapes[key] {
            for offset in run.start..<run.end {
                output.advance[offset] = 0
                output.breakAdjust[offset] = 0
                output.isClusterStart[offset] = false
                output.isUnsafe[offset] = false
            }
            for cluster in clusters {
                output.advance[run.start + cluster.offset] = cluster.advance
                output.breakAdjust[run.start + cluster.offset] = cluster.breakAdjust
                output.isClusterStart[run.start + cluster.offset] = true
            }
            return
        }
        Shaper.shape(run, of: bytes, font: font, scratch: scratch, output: output)
        if shapes.count >= Self.capacity { shapes.removeAll(keepingCapacity: true) }
        shapes[key] = (run.start..<run.end).compactMap { offset in
            output.isClusterStart[offset]
                ? ShapedCluster(offset: offset - run.start, advance: output.advance[offset],
                                breakAdjust: output.breakAdjust[offset])
                : nil
        }
    }
}
