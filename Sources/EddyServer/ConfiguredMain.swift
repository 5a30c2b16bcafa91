#if Tools
import ArgumentParser
import EddyServerKit
import Foundation

extension EddyServerCommand {
    /// Runs `eddy-server` with its configuration file and `EDDY_SERVER_*` variables turned into arguments before the
    /// command line's own (`ConfigurationSources`: flag > environment > file > default). A file or variable that cannot
    /// be used stops it with exit status 2 and the reason.
    static func main() async {
        let commandLine = Array(CommandLine.arguments.dropFirst())
        let arguments: [String]
        do { arguments = try configuredArguments(commandLine, environment: ProcessInfo.processInfo.environment) } catch {
            FileHandle.standardError.write(Data("eddy-server: \(error)\n".utf8))
            Foundation.exit(2)
        }
        await main(arguments)
    }

    /// The subcommands whose options can come from the file and the environment: `serve` all of its options, the
    /// others that open the database their database options.
    static func configuredArguments(_ commandLine: [String], environment: [String: String]) throws(ConfigurationError) -> [String] {
        var path: [String] = []
        var rest = commandLine[...]
        if let first = rest.first, ["serve", "keys", "migrate", "ingest-pilot-reports", "ingest-forecast", "openapi"].contains(first) {
            path.append(first)
            rest = rest.dropFirst()
            if first == "keys", let second = rest.first, ["add", "list", "revoke", "rotate"].contains(second) {
                path.append(second)
                rest = rest.dropFirst()
            }
        }
        // Help and version are the parser's own; nothing else to add to them.
        guard !rest.contains(where: { ["--help", "-h", "--version", "help"].contains($0) }) else { return commandLine }
        let settings: [ConfigurationSources.Setting]
        if path.isEmpty || path == ["serve"] {
            settings = Self.settings(of: Serve())
        } else if path == ["migrate"] || path == ["ingest-pilot-reports"] || path == ["ingest-forecast"] || (path.first == "keys" && path.count == 2) {
            settings = Self.settings(of: DatabaseOption())
        } else {
            return commandLine
        }
        let file = Self.value(of: "--config", in: rest) ?? environment["EDDY_SERVER_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let sources = ConfigurationSources(
            settings: settings.filter { $0.name != "config" }, command: "eddy-server " + (path.isEmpty ? "serve" : path.joined(separator: " ")))
        let configured = try sources.arguments(file: file, environment: environment)
        return (path.isEmpty ? ["serve"] : path) + configured + rest
    }

    /// The value after `option` (`--config PATH` or `--config=PATH`) in `arguments`, if any.
    static func value(of option: String, in arguments: ArraySlice<String>) -> String? {
        for (index, argument) in zip(arguments.indices, arguments) {
            if argument == option, arguments.index(after: index) < arguments.endIndex { return arguments[arguments.index(after: index)] }
            if argument.hasPrefix(option + "=") { return String(argument.dropFirst(option.count + 1)) }
        }
        return nil
    }

    /// The long options and flags of `arguments`' type (its `@Option`s, `@Flag`s and those of its `DatabaseOption`
    /// group), named as the parser names them (`databasePoolSize` → `database-pool-size`).
    static func settings(of arguments: some ParsableArguments) -> [ConfigurationSources.Setting] {
        Mirror(reflecting: arguments).children.flatMap { child -> [ConfigurationSources.Setting] in
            guard let label = child.label, label.hasPrefix("_") else { return [] }
            let type = String(describing: Swift.type(of: child.value))
            let name = Self.kebabCase(String(label.dropFirst()))
            if type.hasPrefix("Option<") { return [.init(name: name, isFlag: false)] }
            if type.hasPrefix("Flag<") { return [.init(name: name, isFlag: true)] }
            if type.hasPrefix("OptionGroup<") { return Self.settings(of: DatabaseOption()) }
            return []
        }
    }

    /// `camelCase` → `camel-case`.
    static func kebabCase(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase, !out.isEmpty { out.append("-") }
            out.append(contentsOf: character.lowercased())
        }
        return out
    }
}
#endif
