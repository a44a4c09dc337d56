import Testing
import TestSupport

/// The corpus loader shared by the tests and the benchmarks.
@Suite("Corpus loader")
struct CorpusTests {
    @Test func escapes() {
        #expect(Corpus.unescape(#"a\nb\rc\td"#) == "a\nb\rc\td")
        #expect(Corpus.unescape(#"\\n is literal"#) == #"\n is literal"#)
        #expect(Corpus.unescape(#"\u00e9t\u00C9"#) == "étÉ")
        #expect(Corpus.unescape(#"emoji \u200d join"#) == "emoji \u{200D} join")
        // Not four hex digits, or not a scalar (a lone surrogate): kept as written.
        #expect(Corpus.unescape(#"\u12"#) == #"\u12"#)
        #expect(Corpus.unescape(#"\ud800x"#) == #"\ud800x"#)
        #expect(Corpus.unescape(#"end\"#) == #"end\"#)
    }

    @Test func theCorpusHasItsTabsAndEscapedScalars() throws {
        let texts = try #require(Corpus.load(from: packageRoot() + "/Tests/Corpus/multilingual.txt"))
        #expect(texts.count >= 190)
        #expect(texts.contains { $0.contains("\t") })
        #expect(!texts.contains { $0.contains(#"\t"#) || $0.contains(#"\u"#) })
    }
}
