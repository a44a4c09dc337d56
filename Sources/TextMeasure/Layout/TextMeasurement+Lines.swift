extension TextMeasurement {
    /// The lines of a measurement, in order: a random-access collection of ``Line`` values, used like
    /// an array.
    ///
    /// The first four lines are kept inside the value itself, so laying out a text of up to four lines
    /// with its lines allocates nothing; a fifth line moves them all to an array. Equality and hashing
    /// are those of the lines in order, however they are stored.
    ///
    /// `Array(measurement.lines)` gives an `[Line]`; an array literal gives a `Lines`.
    public struct Lines: Sendable {
        /// How many lines are kept inline.
        static let inlineCapacity = 4

        /// The lines while there are at most ``inlineCapacity``; the ones past `count` are placeholders.
        private var inline: (Line, Line, Line, Line)
        /// Every line once there are more than ``inlineCapacity``; empty until then.
        private var spilled: [Line]
        /// The number of lines.
        public private(set) var count: Int

        /// No lines.
        public init() {
            let none = Line(utf8Range: 0..<0, width: 0)
            inline = (none, none, none, none)
            spilled = []
            count = 0
        }

        /// Appends a line.
        ///
        /// - Parameter line: The line to add after the last.
        /// - Complexity: O(1) amortized; the fifth line copies the first four into an array.
        @inline(__always)
        public mutating func append(_ line: Line) {
            switch count {
            case 0: inline.0 = line
            case 1: inline.1 = line
            case 2: inline.2 = line
            case 3: inline.3 = line
            case Self.inlineCapacity:
                spilled.reserveCapacity(2 * Self.inlineCapacity)
                spilled.append(contentsOf: [inline.0, inline.1, inline.2, inline.3, line])
            default: spilled.append(line)
            }
            count += 1
        }
    }
}

extension TextMeasurement.Lines: RandomAccessCollection, MutableCollection {
    public typealias Element = TextMeasurement.Line
    public typealias Index = Int
    public typealias Indices = Range<Int>

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of lines.
    public var endIndex: Int { count }

    /// The line at `position`.
    ///
    /// - Parameter position: An index in `0..<count`; any other traps.
    /// - Complexity: O(1).
    public subscript(position: Int) -> TextMeasurement.Line {
        get {
            precondition(position >= 0 && position < count, "TextMeasurement.Lines index out of range")
            guard count <= Self.inlineCapacity else { return spilled[position] }
            switch position {
            case 0: return inline.0
            case 1: return inline.1
            case 2: return inline.2
            default: return inline.3
            }
        }
        set {
            precondition(position >= 0 && position < count, "TextMeasurement.Lines index out of range")
            guard count <= Self.inlineCapacity else {
                spilled[position] = newValue
                return
            }
            switch position {
            case 0: inline.0 = newValue
            case 1: inline.1 = newValue
            case 2: inline.2 = newValue
            default: inline.3 = newValue
            }
        }
    }
}

extension TextMeasurement.Lines: RangeReplaceableCollection {
    /// Replaces the lines in `subrange` with `newElements`.
    ///
    /// - Parameters:
    ///   - subrange: The range of lines to replace, within `0...count`.
    ///   - newElements: The lines that take their place.
    /// - Complexity: O(*n* + *m*): the lines are copied out and back in.
    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
        where C.Element == TextMeasurement.Line {
        var all = Array(self)
        all.replaceSubrange(subrange, with: newElements)
        var replaced = Self()
        for line in all { replaced.append(line) }
        self = replaced
    }
}

extension TextMeasurement.Lines: Hashable {
    /// Whether both hold the same lines in the same order.
    ///
    /// - Parameters:
    ///   - lhs: Lines to compare.
    ///   - rhs: Lines to compare.
    /// - Returns: `true` when the counts and every line are equal.
    /// - Complexity: O(*n*).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    /// Hashes the count and every line, in order (as an array of the same lines does).
    ///
    /// - Parameter hasher: The hasher to feed.
    /// - Complexity: O(*n*).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for line in self { hasher.combine(line) }
    }
}

extension TextMeasurement.Lines: ExpressibleByArrayLiteral {
    /// The lines listed, in order.
    ///
    /// - Parameter elements: The lines.
    public init(arrayLiteral elements: TextMeasurement.Line...) {
        self.init(elements)
    }
}

extension TextMeasurement.Lines: CustomStringConvertible {
    /// The lines as an array of them would print.
    public var description: String { Array(self).description }
}
