#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `main` of a Strata command-line tool: parse, dispatch, report, exit.
public enum CommandLineTool {
    /// Parses `arguments` against `spec`, runs `body`, and exits the process with its code.
    ///
    /// Help goes to stdout with exit 0; usage errors go to stderr with exit 2 (`ExitCode.usage`);
    /// an error other than `UsageError` thrown by `body` is printed with exit 1.
    public static func run(
        spec: CommandSpec,
        arguments: some Sequence<String> = CommandLine.arguments.dropFirst(),
        body: (ParsedCommand) throws -> Int32
    ) -> Never {
        let code = execute(
            spec: spec,
            arguments: Array(arguments),
            output: StandardStreams.writeLine,
            errorOutput: StandardStreams.writeErrorLine,
            body: body
        )
        StandardStreams.flush()
        exit(code)
    }

    /// Does everything `run` does except exit, writing through `output` and `errorOutput`, and
    /// returns the exit code; tests use it to check a tool's behaviour in-process.
    public static func execute(
        spec: CommandSpec,
        arguments: [String],
        output: (String) -> Void,
        errorOutput: (String) -> Void,
        body: (ParsedCommand) throws -> Int32
    ) -> Int32 {
        let parsed: ParsedCommand
        do {
            switch try CommandLineParser.parse(arguments, spec: spec) {
            case .helpRequested(let command, let commandPath):
                output(HelpFormatter.render(command, commandPath: commandPath))
                return ExitCode.ok
            case .command(let command):
                parsed = command
            }
        } catch {
            errorOutput(error.description)
            return ExitCode.usage
        }
        do {
            return try body(parsed)
        } catch let error as UsageError {
            errorOutput(error.description)
            return ExitCode.usage
        } catch {
            errorOutput("\(parsed.commandPath.joined(separator: " ")): error: \(error)")
            return ExitCode.failure
        }
    }
}
