import Testing
@testable import TextMeasureBatch
