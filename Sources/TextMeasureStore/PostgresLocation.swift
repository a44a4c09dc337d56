import Foundation
internal import PostgresNIO

/// A PostgreSQL height store's address, from a URL in libpq's form:
///
/// ```
/// postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require&connect_timeout=SECONDS&host=/SOCKET/DIR]
/// ```
///
/// `postgresql://` is the same. USER defaults to `PGUSER`, else the process's user name; PASSWORD to
/// `PGPASSWORD`; PORT to 5432; DATABASE to USER. `host=/dir` reaches the server through its Unix socket
/// `/dir/.s.PGSQL.PORT` instead of TCP. `sslmode` defaults to `disable` (TLS costs a handshake per
/// connection and a trust store load per process; turn it on for a server across an untrusted network).
/// User, password and database may be percent-encoded.
///
/// Thread safety: a value type; `Sendable`.
struct PostgresLocation: Sendable {
    /// What TLS the connection uses.
    enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    var host: String
    var port: Int
    /// The folder of the server's Unix socket, when `host=/…` asked for one.
    var socketFolder: String?
    var user: String
    var password: String?
    var database: String
    var tls: TLSMode
    /// How long connecting (TCP, TLS, authentication and the schema check) may take.
    var connectTimeout: TimeAmount

    /// Whether `location` names a PostgreSQL server rather than a SQLite file.
    static func isURL(_ location: String) -> Bool {
        let lower = location.prefix(13).lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// The URL without its password, for messages and ``HeightStore/path``.
    var display: String {
        let authority = socketFolder == nil ? "\(Self.bracketed(host)):\(port)" : ""
        let encodedUser = user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? user
        let encodedDatabase = database.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? database
        var query: [String] = []
        if let socketFolder { query.append("host=\(socketFolder)") }
        if tls != .disable { query.append("sslmode=\(tls.rawValue)") }
        return "postgres://\(encodedUser)@\(authority)/\(encodedDatabase)"
            + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// Parses `url`.
    ///
    /// - Throws: ``HeightStoreError/cannotOpen(path:reason:)`` naming what is wrong (the message
    ///   shows the URL without its password).
    init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(HeightStoreError) {
        func invalid(_ reason: String) -> HeightStoreError {
            .cannotOpen(path: Self.redacted(url), reason: reason)
        }
        guard Self.isURL(url), let components = URLComponents(string: url) else {
            throw invalid("not a URL of the form postgres://USER@HOST:PORT/DATABASE")
        }
        var host = components.host ?? ""
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        host = host.removingPercentEncoding ?? host
        port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw invalid("port \(port) is out of range") }
        user = components.user?.removingPercentEncoding ?? environment["PGUSER"] ?? Self.processUserName() ?? ""
        guard !user.isEmpty else { throw invalid("no user name (postgres://USER@HOST/DATABASE)") }
        password = components.password?.removingPercentEncoding ?? environment["PGPASSWORD"]
        var path = components.percentEncodedPath
        if path.hasPrefix("/") { path.removeFirst() }
        guard !path.contains("/") else { throw invalid("the path must be one database name") }
        database = path.isEmpty ? user : (path.removingPercentEncoding ?? path)
        tls = .disable
        connectTimeout = .seconds(Int64(Self.defaultConnectTimeout))
        socketFolder = nil
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                switch value {
                case "disable", "allow": tls = .disable
                case "prefer": tls = .prefer
                case "require", "verify-ca", "verify-full": tls = .require
                default: throw invalid("sslmode \"\(value)\" is not disable, prefer or require")
                }
            case "connect_timeout":
                guard let seconds = Int(value), (1...600).contains(seconds) else {
                    throw invalid("connect_timeout \"\(value)\" is not a number of seconds from 1 to 600")
                }
                connectTimeout = .seconds(Int64(seconds))
            case "host":
                guard value.hasPrefix("/") else { throw invalid("host=\(value): only a socket folder (/…) may be given here") }
                socketFolder = value
            case "application_name":
                break   // accepted for libpq compatibility; the store names itself
            default:
                throw invalid("unknown parameter \"\(item.name)\" (known: sslmode, connect_timeout, host)")
            }
        }
        guard socketFolder != nil || !host.isEmpty else { throw invalid("no host (postgres://USER@HOST/DATABASE)") }
        self.host = host.isEmpty ? "localhost" : host
    }

    /// Seconds connecting may take unless `connect_timeout` says otherwise.
    static let defaultConnectTimeout = 2

    /// The connection configuration for postgres-nio.
    ///
    /// - Throws: ``HeightStoreError/cannotOpen(path:reason:)`` when TLS cannot be set up.
    func configuration() throws(HeightStoreError) -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketFolder {
            configuration = PostgresConnection.Configuration(
                unixSocketPath: socketFolder + "/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            let tls: PostgresConnection.Configuration.TLS
            do {
                switch self.tls {
                case .disable: tls = .disable
                case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
                case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                }
            } catch {
                throw .cannotOpen(path: display, reason: "TLS: \(error)")
            }
            configuration = PostgresConnection.Configuration(host: host, port: port, username: user, password: password,
                                                             database: database, tls: tls)
        }
        configuration.options.connectTimeout = connectTimeout
        // The server stops a statement that outlives the client's patience (see PostgresHeights'
        // timeouts), and a write that waits on another writer's lock gives up: neither holds a
        // connection or a lock after the client has moved on.
        configuration.options.additionalStartupParameters = [
            ("application_name", "textmeasure-height-store"),
            ("statement_timeout", "\(PostgresHeights.writeTimeoutSeconds * 1000)"),
            ("lock_timeout", "\(PostgresHeights.writeTimeoutSeconds * 1000)"),
            ("idle_in_transaction_session_timeout", "\(PostgresHeights.writeTimeoutSeconds * 1000)"),
        ]
        return configuration
    }

    /// `url` with any password replaced, for messages about a URL that could not be parsed.
    static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let scheme = url.range(of: "://"), scheme.upperBound < at,
              let colon = url[scheme.upperBound..<at].firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":…" + String(url[at...])
    }

    private static func bracketed(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }

    private static func processUserName() -> String? {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }
}
