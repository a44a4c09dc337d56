/// Why a picture could not be made or written.
package struct RenderError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in words a person can act on.
    package var message: String

    /// Creates an error with its message.
    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
