import TextMeasureSupport

/// The brackets whose pairs Pango's script iterator matches (`paired_chars` in `pango-script.c`,
/// Pango 1.50): a closing bracket takes the script of the text its opening bracket stood in, so that
/// `(注)` after Latin text closes in Latin. Only characters of the Common script are looked up.
enum PairedBrackets {
    /// Opening and closing brackets, in pairs, ascending: an even index opens, the odd one after it
    /// closes the same pair.
    static let characters: [UInt32] = [
        0x0028, 0x0029, 0x003C, 0x003E, 0x005B, 0x005D, 0x007B, 0x007D, 0x00AB, 0x00BB,
        0x0F3A, 0x0F3B, 0x0F3C, 0x0F3D, 0x169B, 0x169C,
        0x2018, 0x2019, 0x201C, 0x201D, 0x2039, 0x203A, 0x2045, 0x2046, 0x207D, 0x207E, 0x208D, 0x208E,
        0x27E6, 0x27E7, 0x27E8, 0x27E9, 0x27EA, 0x27EB, 0x27EC, 0x27ED, 0x27EE, 0x27EF,
        0x2983, 0x2984, 0x2985, 0x2986, 0x2987, 0x2988, 0x2989, 0x298A, 0x298B, 0x298C, 0x298D, 0x298E,
        0x298F, 0x2990, 0x2991, 0x2992, 0x2993, 0x2994, 0x2995, 0x2996, 0x2997, 0x2998, 0x29FC, 0x29FD,
        0x2E02, 0x2E03, 0x2E04, 0x2E05, 0x2E09, 0x2E0A, 0x2E0C, 0x2E0D, 0x2E1C, 0x2E1D,
        0x2E20, 0x2E21, 0x2E22, 0x2E23, 0x2E24, 0x2E25, 0x2E26, 0x2E27, 0x2E28, 0x2E29,
        0x3008, 0x3009, 0x300A, 0x300B, 0x300C, 0x300D, 0x300E, 0x300F, 0x3010, 0x3011,
        0x3014, 0x3015, 0x3016, 0x3017, 0x3018, 0x3019, 0x301A, 0x301B,
        0xFE59, 0xFE5A, 0xFE5B, 0xFE5C, 0xFE5D, 0xFE5E,
        0xFF08, 0xFF09, 0xFF3B, 0xFF3D, 0xFF5B, 0xFF5D, 0xFF5F, 0xFF60, 0xFF62, 0xFF63,
    ]

    /// How many opening brackets Pango keeps at once (`PAREN_STACK_DEPTH`).
    static let depth = 128

    /// Whether a character whose UTF-8 form starts with `lead` may be one of ``characters``: every
    /// other character is told apart by this byte alone, at the cost of a test per weak cluster.
    @inline(__always)
    static func mayStartBracket(_ lead: UInt8) -> Bool {
        switch lead {
        case 0x28, 0x29, 0x3C, 0x3E, 0x5B, 0x5D, 0x7B, 0x7D, 0xC2, 0xE0, 0xE1, 0xE2, 0xE3, 0xEF: true
        default: false
        }
    }

    /// The index in ``characters`` of the character starting at `start` in `bytes`, or nil when it is
    /// no bracket.
    ///
    /// - Complexity: O(1): a binary search of ``characters``.
    static func pair(of bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        index(of: UTF8Decoding.scalar(in: bytes, at: start).value)
    }

    private static func index(of scalar: UInt32) -> Int? {
        var lower = 0, upper = characters.count - 1
        while lower <= upper {
            let middle = (lower + upper) / 2
            if scalar < characters[middle] { upper = middle - 1 } else if scalar > characters[middle] { lower = middle + 1 } else { return middle }
        }
        return nil
    }
}
