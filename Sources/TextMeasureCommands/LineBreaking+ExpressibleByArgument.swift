import ArgumentParser
import TextMeasure

/// `--breaking pango|browser|browser-strict`: the option's values are the cases' raw values.
extension LineBreaking: ExpressibleByArgument {}
