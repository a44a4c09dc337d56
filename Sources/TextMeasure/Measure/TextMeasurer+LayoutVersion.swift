extension TextMeasurer {
    /// The version of this package's line breaking and shaping, as far as results are concerned.
    ///
    /// Persistent stores of measurements (`TextMeasureStore`) put it in every key, so a result
    /// stored by another version is never answered.
    ///
    /// **The rule:** bump it in the same commit as any change that can change a measurement for some
    /// text, style, fonts and width: line breaking (`LineBreaker`, break opportunities, hanging white
    /// space, tabs), itemization and font selection, shaping (HarfBuzz flags, features, the shaped
    /// word cache), line height, or rounding of widths. A change that only makes the same results
    /// faster does not need a bump. The HarfBuzz and ICU versions are not part of it: a store is
    /// cleared with `textmeasure store clear PATH` after upgrading them.
    ///
    /// History: 1, the first stored results; 2, the browser modes measure in 1/65536 px (Blink's
    /// exact advances and its reshaped line ends from LayoutUnit positions); 3, natural line heights
    /// from the fonts on each line (Pango's extents, Blink's `line-height: normal`), and Pango's
    /// spaces between two scripts keep the font before them; 4, ``LineBreaking/pango`` breaks South-East
    /// Asian text with Pango's dictionary alone, takes no hard break at VT, FF and NEL, and draws
    /// characters the fonts lack as Pango's hex boxes; 5, ``LineBreaking/pango`` counts the white space
    /// at a line's end as Pango does (all of it but the last character, all of it before a paragraph's
    /// separator) and breaks off what does not fit; 6, ``LineBreaking/pango`` moves the runs of a line
    /// onto the baseline of its first run's script, as Pango does, before uniting their extents; 7,
    /// ``LineBreaking/pango`` breaks after a hyphen-minus that starts a word, before the letter after it;
    /// 8, ``LineBreaking/pango`` draws every Emoji_Modifier_Base with the color font; 9,
    /// ``LineBreaking/pango`` lets a VT, FF, NEL or U+2028 ending a paragraph hang before its separator;
    /// 10, ``LineBreaking/pango`` counts white space followed by white space of a segment of its own;
    /// 11, ``LineBreaking/pango`` breaks after a word-initial U+2010 too, never after a joiner on the
    /// hyphen, and keeps a text-default emoji base with a combining keycap in the text font; 12,
    /// ``LineBreaking/pango`` breaks before white space of a segment of its own unless all of it fits,
    /// lets only the last white space character hang inside a word broken between characters, gives
    /// a paragraph of white space alone the primary font, counts the white space before a U+2028 and
    /// starts no line after one that ends a paragraph; 13, ``LineBreaking/pango`` gives each character
    /// of a grapheme cluster the first font that has it, as Pango does (a cluster may be drawn in two
    /// fonts), and ends an emoji sequence before a combining mark; 14, the browser modes break around
    /// hyphens as Unicode 16 does (LB20a, LB21a), and a line ending after a cluster whose base is kerned
    /// with what follows counts the kerning lost also when the cluster ends in a mark; 15, the browser
    /// modes take a bitmap emoji font's advances from its strike, as Blink does, break neither after a
    /// VT nor after an FF, and take a combining grapheme joiner for a mark around hyphens; 16, the
    /// browser modes break before an opening and after a closing quotation mark between East Asian
    /// characters, as Unicode 15.1 does (LB19a); 17, the browser modes give a control character the
    /// first font that maps it, as Blink does; 18, in the browser modes a soft hyphen before white
    /// space shows its hyphen (the style's first font's) where the line breaks, the last line of a
    /// paragraph takes the rest whole where it fits with its white space counted, and a tab, a soft
    /// hyphen, a zero-width space or another format character reaches only the strut, as in Blink; 19,
    /// ``LineBreaking/pango`` takes a joiner ending an emoji cluster for text of its own, as Pango does;
    /// 20, ``LineBreaking/pango`` gives a closing bracket, and the weak text after it, the script its
    /// opening bracket stood in, as Pango's script iterator does; 21, in the browser modes a line goes on
    /// past a soft hyphen whose hyphen does not fit to a later break that fits, and a soft hyphen after
    /// right-to-left text starts a text item of its own, as Blink does.
    public static let layoutVersion: UInt32 = 21
}
