import CUnicodeBreak

/// Where Blink decides line-break opportunities itself rather than asking ICU, applied to the flags
/// `cub_analyze` wrote for a paragraph (``LineBreaking/browser`` and ``LineBreaking/browserStrict``).
///
/// Blink's `LazyLineBreakIterator` answers three kinds of boundary without ICU:
/// - **after a run of spaces** (U+0020 and tabs; a paragraph holds no line feed) a line may break,
///   whatever follows (ICU says no before `!`, `)`, `/` and the like even after a space, UAX #14 LB13);
/// - **between two printable ASCII characters** (U+0021…U+007F) its pair table decides
///   (``breaksBetween(_:_:)``): no break after `/` in a URL or a path, a break after `-` and `?`,
///   before `(`, `<`, `[` and `{`, and nowhere else;
/// - **`-` before an ASCII digit** is a break only after an ASCII letter or digit (`ext-1234`, not a
///   minus sign: `x -1`).
///
/// Around hyphens, Chromium's ICU follows Unicode 16's rules where Debian's ICU 72 has older ones
/// (`cub_browser_hyphen_breaks`): "-" and the dashes of class HH keep a word-initial hyphen with the
/// letter after it, Hebrew letters included, and a line may break after a hyphen between two Hebrew
/// letters (`תל-אביב`) and after any BA character that follows a Hebrew letter. Around quotation
/// marks it follows Unicode 15.1 (`cub_browser_quote_breaks`): a line may break before an opening
/// quotation mark and after a closing one that stand between East Asian characters (`他说|“我们”|然后`).
///
/// Everything else is ICU's (a pair with a character past ASCII, controls). Hard breaks inside a
/// paragraph (U+2028, U+2029, NEL: all mandatory for ICU) are ordinary opportunities in a browser:
/// ``apply(to:bytes:)`` clears their mandatory flag; after a lone CR, a VT or an FF there is no break
/// at all (`"Mac\rline"` and `"aaaa\u{0B}bbbb"` are one word for Blink).
///
/// Measured in Chromium 156 (see `docs/chromium-differences.md`, rules 3, 4, 5, 11, 14, 19 and 21).
enum BrowserBreakRules {
    private static let first: UInt8 = 0x21
    private static let last: UInt8 = 0x7F

    /// Adjusts a paragraph's break flags to Blink's rules.
    ///
    /// - Parameters:
    ///   - flags: `bytes.count + 1` flags from `cub_analyze` (offset *i*: a break before byte *i*).
    ///   - bytes: The paragraph's UTF-8 bytes.
    ///   - strictness: The rules `cub_analyze_with` used, `CUB_STRICTNESS_NORMAL` or
    ///     `CUB_STRICTNESS_STRICT`.
    /// - Complexity: O(*n*) in the paragraph's bytes; no allocation.
    static func apply(to flags: UnsafeMutableBufferPointer<UInt8>, bytes: UnsafeBufferPointer<UInt8>,
                      strictness: Int32) {
        let count = bytes.count
        // First, so that Blink's pair table below has the last word on "-" before ASCII.
        bytes.withMemoryRebound(to: CChar.self) {
            cub_browser_hyphen_breaks($0.baseAddress, Int32(count), flags.baseAddress, strictness)
            cub_browser_quote_breaks($0.baseAddress, Int32(count), flags.baseAddress, strictness)
        }
        guard count > 1 else {
            if count == 1 { flags[1] &= ~UInt8(CUB_MANDATORY_BREAK) }
            return
        }
        let table = pairTable
        let lineBreak = UInt8(CUB_LINE_BREAK)
        table.withUnsafeBufferPointer { table in
            var previous = bytes[0]
            for i in 1..<count {
                let current = bytes[i]
                flags[i] &= ~UInt8(CUB_MANDATORY_BREAK)
                if previous == 0x0D || previous == 0x0B || previous == 0x0C {
                    flags[i] &= ~lineBreak              // a lone CR, a VT, an FF join what follows (Blink)
                } else if isBreakableSpace(current) {
                    flags[i] &= ~lineBreak             // never before a space
                } else if isBreakableSpace(previous) {
                    flags[i] |= lineBreak               // always after a run of spaces
                } else if previous >= first && previous <= last && current >= first && current <= last {
                    let breaks: Bool
                    if previous == 0x2D && current >= 0x30 && current <= 0x39 {
                        breaks = i >= 2 && isASCIIAlphanumeric(bytes[i - 2])
                    } else {
                        breaks = table[Int(previous - first) * width + Int(current - first)]
                    }
                    if breaks { flags[i] |= lineBreak } else { flags[i] &= ~lineBreak }
                }
                previous = current
            }
        }
        flags[count] &= ~UInt8(CUB_MANDATORY_BREAK)
    }

    @inline(__always)
    private static func isBreakableSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    @inline(__always)
    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
    }

    private static let width = Int(last - first) + 1

    /// ``breaksBetween(_:_:)`` for every pair, row by row.
    private static let pairTable: [Bool] = (first...last).flatMap { before in
        (first...last).map { after in breaksBetween(before, after) }
    }

    /// Blink's pair table (`kFastLineBreakTable`, the ASCII part of `LineBreakData`): whether a line
    /// may break between two printable ASCII characters. `-` before a digit is decided by context
    /// instead (see the type's documentation).
    ///
    /// - Parameters:
    ///   - before: The character before the boundary, U+0021…U+007F.
    ///   - after: The character after it, U+0021…U+007F.
    /// - Returns: Whether the boundary is a break opportunity.
    static func breaksBetween(_ before: UInt8, _ after: UInt8) -> Bool {
        // Never before closing punctuation and the like: ! ) , . / : ; ? ] }
        switch after {
        case 0x21, 0x29, 0x2C, 0x2E, 0x2F, 0x3A, 0x3B, 0x3F, 0x5D, 0x7D: return false
        default: break
        }
        let isDigit = after >= 0x30 && after <= 0x39
        switch before {
        case 0x2D: return after != 0x24 && !isDigit            // after "-": before anything but "$" (digits: context)
        case 0x3F: return after != 0x22 && after != 0x27       // after "?": before anything but quotes
        // Never after: $ ' ( / digits < @ letters [ ^ _ ` { DEL
        case 0x24, 0x27, 0x28, 0x2F, 0x30...0x39, 0x3C, 0x40, 0x41...0x5A, 0x5B, 0x5E, 0x5F, 0x60, 0x61...0x7A,
             0x7B, 0x7F:
            return false
        // After the rest: before opening brackets only.
        default: return after == 0x28 || after == 0x3C || after == 0x5B || after == 0x7B
        }
    }
}
