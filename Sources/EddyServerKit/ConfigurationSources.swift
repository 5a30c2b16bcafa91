#if Tools
import Foundation

/// `eddy-server`'s settings from outside the command line (docs/fleet-server.md "Configuration"): a configuration file
/// (`--config PATH` or `EDDY_SERVER_CONFIG`) and `EDDY_SERVER_*` environment variables, turned into command-line
/// arguments placed before the real ones, so that the precedence is **flag > environment > file > default** (the
/// argument parser keeps the last value of an option).
///
/// The file has one `name = value` a line, `name` being a long option of the subcommand without its dashes
/// (`port = 8080`, `database = postgres://eddy@db/eddy`, `no-metrics = true`); `#` starts a comment line; a value may
/// be in double quotes. The variable of an option is `EDDY_SERVER_` and its name in upper case with `_` for `-`
/// (`EDDY_SERVER_DATABASE_POOL_SIZE`). A flag (an option without a value) takes `true` or `false`; a flag set by the
/// file or the environment cannot be unset on the command line (set it to false there instead).
package struct ConfigurationSources: Sendable {
    /// A long option a subcommand accepts.
    package struct Setting: Sendable, Equatable {
        /// Its name without the dashes (`database-pool-size`).
        package var name: String
        /// Whether it is a flag (no value).
        package var isFlag: Bool
        /// Creates a setting.
        package init(name: String, isFlag: Bool) { self.name = name; self.isFlag = isFlag }
    }

    /// The options of the subcommand being run.
    package var settings: [Setting]
    /// The subcommand, for messages (`eddy-server serve`).
    package var command: String

    /// Creates the sources of a subcommand's settings.
    package init(settings: [Setting], command: String) {
        self.settings = settings
        self.command = command
    }

    /// The environment variable of an option.
    package static func variable(of name: String) -> String { "EDDY_SERVER_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }

    /// The arguments the file at `path` (nil: none) and `environment` stand for, file first.
    package func arguments(file path: String?, environment: [String: String]) throws(ConfigurationError) -> [String] {
        var arguments: [String] = []
        if let path {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(source: path, problem: "cannot read the configuration file (missing, or permission denied)")
            }
            arguments += try fileArguments(String(decoding: data, as: UTF8.self), source: path)
        }
        for setting in settings {
            let variable = Self.variable(of: setting.name)
            guard let value = environment[variable] else { continue }
            arguments += try self.arguments(setting, value: value, source: variable)
        }
        return arguments
    }

    /// The arguments of a configuration file's text (`source` names it in errors).
    package func fileArguments(_ text: String, source: String) throws(ConfigurationError) -> [String] {
        var arguments: [String] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let place = "\(source) line \(index + 1)"
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigurationError(source: place, problem: "expected name = value, got '\(line.prefix(80))'")
            }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard let setting = settings.first(where: { $0.name == name }) else {
                throw ConfigurationError(source: place, problem: "`\(command)` has no setting '\(name)'; its settings are "
                    + settings.map(\.name).joined(separator: ", "))
            }
            arguments += try self.arguments(setting, value: value, source: place)
        }
        return arguments
    }

    /// The arguments of one setting's value.
    func arguments(_ setting: Setting, value: String, source: String) throws(ConfigurationError) -> [String] {
        guard setting.isFlag else { return ["--\(setting.name)", value] }
        switch value.lowercased() {
        case "true", "1", "yes": return ["--\(setting.name)"]
        case "false", "0", "no", "": return []
        default: throw ConfigurationError(source: source, problem: "\(setting.name) is a flag: give true or false, not '\(value)'")
        }
    }
}

/// A configuration file or variable that cannot be used: where, what is wrong and what to do.
package struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// The file and line, or the variable.
    package var source: String
    /// What is wrong.
    package var problem: String
    /// The message shown at start.
    package var description: String { "\(source): \(problem)" }
}
#endif
