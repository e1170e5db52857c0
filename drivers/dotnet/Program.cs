// Conformance driver for the GitHub Copilot .NET SDK (NuGet package GitHub.Copilot.SDK).
//
// Speaks drivers/PROTOCOL.md: one JSON command per line on stdin, one response per command and
// any number of events on stdout. stdout carries protocol lines only: Console.Out is pointed at
// stderr before anything else runs, the SDK's ILogger writes to stderr, and every protocol line
// goes through WriteLine under one lock.
//
// Written against GitHub.Copilot.SDK 1.0.11 (github/copilot-sdk tag v1.0.11, dotnet/src):
//   CopilotClient / CopilotClientOptions / RuntimeConnection.ForUri|ForStdio   Client.cs, Types.cs
//   CopilotTool.DefineTool + CopilotToolOptions                                 CopilotTool.cs
//   CopilotSession.SendAsync / SendAndWaitAsync / DisposeAsync                  Session.cs
//   session.Rpc.History.ClearContextAsync ([Experimental] GHCP001)              Generated/Rpc.cs

using System.Collections;
using System.Collections.Concurrent;
using System.Globalization;
using System.Reflection;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Nodes;
using GitHub.Copilot;
using Microsoft.Extensions.AI;
using Microsoft.Extensions.Logging;

namespace Conformance.Driver;

internal static class Program
{
    private const string PackageId = "GitHub.Copilot.SDK";

    private static readonly object StdoutGate = new();
    private static StreamWriter s_stdout = null!;
    private static readonly JsonSerializerOptions s_lineOptions = new()
    {
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
        WriteIndented = false,
    };

    // Handles chosen by the harness. Commands of several scenarios run at once (driver.concurrent:
    // each on the thread pool) and tool handlers (SDK threads) read Sessions, hence concurrent maps.
    private static readonly ConcurrentDictionary<string, CopilotClient> s_clients = new(StringComparer.Ordinal);
    private static readonly ConcurrentDictionary<long, Task> s_inflight = new();
    private static readonly ConcurrentDictionary<string, DriverSession> s_sessions = new(StringComparer.Ordinal);

    private static ILogger s_sdkLogger = null!;
    private static string? s_sdkVersion;

    public static async Task<int> Main(string[] argv)
    {
        s_stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false)) { AutoFlush = false };
        Console.SetOut(Console.Error);

        if (argv.Length > 0 && argv[0] == "--probe")
        {
            WriteLine(Probe(argv.Skip(1)));
            return 0;
        }

        if (argv.Contains("--self-check"))
        {
            // Used by the recipe after the build: loads the SDK assembly and prints what hello would say.
            WriteLine(Hello());
            return 0;
        }

        // An in-process default would bypass the connection the harness asks for.
        Environment.SetEnvironmentVariable("COPILOT_SDK_DEFAULT_CONNECTION", null);

        s_sdkLogger = new StderrLogger(ParseLogLevel(Environment.GetEnvironmentVariable("COPILOT_DRIVER_LOG")));
        TaskScheduler.UnobservedTaskException += (_, e) =>
        {
            Diag("unobserved task exception: " + e.Exception.GetBaseException().Message);
            e.SetObserved();
        };

        using var stdin = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
        string? line;
        while ((line = await stdin.ReadLineAsync().ConfigureAwait(false)) is not null)
        {
            if (string.IsNullOrWhiteSpace(line))
            {
                continue;
            }

            JsonObject? command;
            try
            {
                command = JsonNode.Parse(line) as JsonObject;
            }
            catch (JsonException ex)
            {
                EmitLog("driver: ignoring a line that is not JSON: " + ex.Message);
                continue;
            }

            if (command is null || !TryGetLong(command["id"], out long id))
            {
                EmitLog("driver: ignoring a command without an integer id: " + line);
                continue;
            }

            string name = TryGetString(command["cmd"], out var cmd) ? cmd : "";
            JsonObject args = command["args"] as JsonObject ?? new JsonObject();

            if (name == "shutdown")
            {
                // Sent when nothing is in flight; the commands still running get a moment.
                await Task.WhenAny(Task.WhenAll(s_inflight.Values), Task.Delay(TimeSpan.FromSeconds(5))).ConfigureAwait(false);
                await RunCommandAsync(id, name, args).ConfigureAwait(false);
                await StopAllClientsAsync().ConfigureAwait(false);
                Environment.Exit(0);
            }

            // driver.concurrent: each command runs on the thread pool without being awaited here,
            // so that scenarios sharing this process overlap their waits.
            // The entry is made before the command starts, so that its end always removes it.
            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            s_inflight[id] = done.Task;
            _ = Task.Run(async () =>
            {
                try
                {
                    await RunCommandAsync(id, name, args).ConfigureAwait(false);
                }
                finally
                {
                    s_inflight.TryRemove(id, out _);
                    done.SetResult();
                }
            });
        }

        // EOF on stdin: the harness is done with us.
        await StopAllClientsAsync().ConfigureAwait(false);
        Environment.Exit(0);
        return 0;
    }

    /// <summary>Runs one command and writes its response (one whole line under the stdout lock).</summary>
    private static async Task RunCommandAsync(long id, string name, JsonObject args)
    {
        JsonObject response;
        try
        {
            JsonObject result = await DispatchAsync(name, args).ConfigureAwait(false);
            response = new JsonObject { ["id"] = id, ["outcome"] = "ok", ["result"] = result };
        }
        catch (UnsupportedException ex)
        {
            response = new JsonObject { ["id"] = id, ["outcome"] = "unsupported", ["reason"] = ex.Message };
        }
        catch (DriverException ex)
        {
            response = ErrorResponse(id, "DriverError", ex.Message);
        }
        catch (CancelledException ex)
        {
            response = ErrorResponse(id, ex.InnerException!.GetType().Name, ex.InnerException.Message);
            response["error"]!["cancelled"] = true;
            response["error"]!["afterCancelMs"] = ex.AfterCancelMs;
        }
        catch (Exception ex)
        {
            Diag($"{name} failed: {ex}");
            response = ErrorResponse(id, ex.GetType().Name, ex.Message);
        }

        WriteLine(response);
    }

    private static Task<JsonObject> DispatchAsync(string cmd, JsonObject a) => cmd switch
    {
        "hello" => Task.FromResult(Hello()),
        "connect" => ConnectAsync(a),
        "createSession" => CreateSessionAsync(a),
        "resumeSession" => ResumeSessionAsync(a),
        "setTools" => throw new UnsupportedException(
            $"{PackageId} {SdkVersion()} has no session.setTools: CopilotSession has no high-level tool " +
            "replacement (tools are fixed by SessionConfig.Tools / ResumeSessionConfig.Tools) and the generated " +
            "session.Rpc.Tools API has no session.tools.set"),
        "clearContext" => ClearContextAsync(a),
        "send" => SendAsync(a),
        "disconnect" => DisconnectAsync(a),
        "stopClient" => StopClientAsync(a),
        "rpc" => GeneratedRpc.RpcAsync(a, RpcOwner, $"{PackageId} {SdkVersion()}"),
        "rpcBatch" => GeneratedRpc.BatchAsync(a, RpcOwner, $"{PackageId} {SdkVersion()}"),
        "convert" => Converters.ConvertAsync(a, $"{PackageId} {SdkVersion()}"),
        "surface" => Task.FromResult(Surface.Entries()),
        "hold" => Holds.Hold(a),
        "release" => Holds.Release(a),
        "shutdown" => Task.FromResult(new JsonObject()),
        // A newer protocol command this driver does not know: the SDK cannot be asked to do it.
        _ => throw new UnsupportedException($"the dotnet driver has no command '{cmd}'"),
    };

    // ---------------------------------------------------------------- commands

    private static JsonObject Hello()
    {
        string version = SdkVersion();
        string source = Environment.GetEnvironmentVariable("CONFORMANCE_DOTNET_SDK_SOURCE") is { Length: > 0 } local
            ? local
            : $"nuget:{PackageId}@{version}";

        var capabilities = new JsonObject
        {
            ["transport.tcp"] = true,
            ["transport.stdio"] = true,
            ["session.resume"] = true,
            ["tool.isTerminal"] = true,
            ["tool.isTerminal.explicitFalse"] = false,
            ["tool.overridesBuiltInTool"] = true,
            ["tool.skipPermission"] = true,
            ["tool.defer"] = true,
            ["tool.metadata"] = true,
            ["session.setTools"] = false,
            ["session.clearContext"] = true,
            ["events"] = true,
            // Tool results: a Ticket class returned from the tool method is serialized by the SDK
            // (AIFunctionFactory + ToolResultObject.ConvertFromInvocationResult); a ToolResultAIContent
            // hands the SDK a whole ToolResultObject.
            ["tool.result.value"] = true,
            ["tool.result.object"] = true,
            ["tool.result.binary"] = typeof(ToolResultObject).GetProperty("BinaryResultsForLlm") is not null,
            ["tool.result.sessionLog"] = typeof(ToolResultObject).GetProperty("SessionLog") is not null,
            ["tool.result.telemetry"] = typeof(ToolResultObject).GetProperty("ToolTelemetry") is not null,
            ["tool.result.binary.metadata"] = typeof(ToolBinaryResult).GetProperty("Metadata") is not null,
            ["session.gitHubToken"] = SessionTokenProperty() is not null,
            ["session.rpc.tools.set"] = false,
            ["session.rpc.tools.set.nil"] = false,
            ["driver.concurrent"] = true, // commands run on the thread pool (Main)
            ["handler.hold"] = true, // Holds.cs: the tool handlers and the runtime->SDK handlers (Handlers.cs)
            // Handlers.cs: hooks (every SessionHooks hook type), the session file system, canvases,
            // BYOK bearer tokens, GitHub telemetry; HookInputs.cs: hookInputs
            ["rpc.handlers"] = true,
            ["handler.hooks"] = true,
            ["handler.hooks.inputs"] = true,
            // Surface.cs: do-nothing callbacks by property name, each reporting its calls
            ["surface.handlers"] = true,
            ["surface.handlers.called"] = true,
            ["tool.handler.waitFor"] = true, // Holds.ReturnedAsync / MarkReturned
            ["rpc.requestHandler"] = true, // Requests.cs: a CopilotRequestHandler subclass
            ["surface.callbacks"] = true, // ByName.BuildObject: a required delegate left unset gets Surface.DoNothing
            ["handler.cancel.tool"] = Holds.ToolCancelWay(), // BuildTool's Held: the function's CancellationToken
            ["handler.cancel.permission"] = false, // Holds.RequestHandlers: no request handler is held yet
            ["handler.cancel.elicitation"] = false,
            ["handler.cancel.command"] = false,
            // Cancel.cs: each of these calls takes a CancellationToken
            ["call.cancel.createSession"] = true,
            ["call.cancel.resumeSession"] = true,
            ["call.cancel.send"] = true,
            ["call.cancel.sendAndWait"] = true,
            ["call.cancel.rpc"] = true,
            ["error.rpc.code"] = false, // NoRpcCode
        };
        var notes = new JsonObject
        {
            ["handler.cancel.tool"] = Holds.ToolCancelWay()
                ? "AIFunction.InvokeAsync's CancellationToken, bound to the tool function's CancellationToken parameter: cancelled when the SDK gives the call up"
                : $"{PackageId} {version}: AIFunction.InvokeAsync takes no CancellationToken: a tool handler cannot learn that the runtime resolved its call",
            ["tool.isTerminal.explicitFalse"] =
                $"{PackageId} {version}: CopilotToolOptions.IsTerminal is a plain bool and the SDK sends isTerminal only " +
                "when it is true; false and unset both omit the key (same for OverridesBuiltInTool and SkipPermission)",
            ["session.setTools"] =
                $"{PackageId} {version} has no high-level tool replacement and no generated session.tools.set",
            ["session.clearContext"] =
                "through the generated session.Rpc.History.ClearContextAsync, marked [Experimental(\"GHCP001\")]",
            ["tool.result.object"] =
                $"{PackageId} {version}: ToolResultAIContent(ToolResultObject); ToolBinaryResult has Data, MimeType, " +
                "Type and Description, no metadata",
        };
        foreach ((string kind, Type owner, string property, string argument) in Holds.RequestHandlers)
        {
            string? way = Holds.RequestCancelWay(owner, property);
            notes[$"handler.cancel.{kind}"] = way is null
                ? $"{PackageId} {version}: {owner.Name}.{property} hands the {kind} handler no CancellationToken ({argument} has none): it cannot learn that the runtime resolved its request"
                : $"{way}: the driver does not watch it yet";
        }
        notes["rpc.handlers"] =
            $"{PackageId} {version}: hooks.invoke through SessionConfigBase.Hooks, sessionFs.* through CreateSessionFsProvider " +
            "(a SessionFsProvider with both SQLite interfaces; CopilotClientOptions.SessionFs at connect), canvas.* through " +
            "Canvases and CanvasHandler, providerToken.getToken through NamedProviderConfig.BearerTokenProvider, " +
            "gitHubTelemetry.event through CopilotClientOptions.OnGitHubTelemetry; the other methods have no public handler API " +
            "(the generated ClientSessionApiHandlers are filled only inside the SDK)";
        notes["handler.hooks.inputs"] =
            $"{PackageId} {version}: each SessionHooks hook's input class read by reflection, wire keys from [JsonPropertyName]";
        SessionOptions.Declare($"{PackageId} {version}", capabilities, notes);
        ConnectOptions.Declare($"{PackageId} {version}", capabilities, notes);
        GeneratedRpc.Declare($"{PackageId} {version}", capabilities, notes);
        Converters.Declare($"{PackageId} {version}", capabilities, notes);
        // The config and result types the driver builds from JSON (ByName.cs), read from the SDK's types.
        foreach (Type built in new[] { typeof(SessionConfig), typeof(ResumeSessionConfig), typeof(CopilotClientOptions), typeof(ToolResultObject) })
        {
            ByName.Plan(built);
        }
        notes["driver.builtBy"] = ByName.Note();
        notes["error.rpc.code"] = NoRpcCode;
        notes["session.rpc.tools.set.nil"] = "no session.tools.set wrapper to pass a null list to (session.rpc.tools.set)";

        return new JsonObject
        {
            ["protocolVersion"] = 1,
            ["sdk"] = "dotnet",
            ["version"] = version,
            ["source"] = source,
            ["capabilities"] = capabilities,
            ["notes"] = notes,
            ["missing"] = MissingSymbols(capabilities),
        };
    }

    /// <summary>
    /// Names, for each capability this SDK version lacks, the SDK symbol whose absence makes it so
    /// (PROTOCOL.md "Capability audit"), as reflection names it: "Namespace.Type" or
    /// "Namespace.Type.Member". The harness asks `--probe` (below) whether the installed SDK has
    /// each; one it has turns the audit red. "driver: …" is what this driver does not do yet.
    /// </summary>
    private static JsonObject MissingSymbols(JsonObject capabilities)
    {
        var symbols = new Dictionary<string, string>(StringComparer.Ordinal)
        {
            ["session.setTools"] = "GitHub.Copilot.CopilotSession.SetToolsAsync",
            ["session.rpc.tools.set"] = "GitHub.Copilot.Rpc.ToolsApi.SetAsync",
            ["session.gitHubToken"] = "GitHub.Copilot.SessionConfig.GitHubToken",
            ["tool.result.binary"] = "GitHub.Copilot.ToolResultObject.BinaryResultsForLlm",
            ["tool.result.sessionLog"] = "GitHub.Copilot.ToolResultObject.SessionLog",
            ["tool.result.telemetry"] = "GitHub.Copilot.ToolResultObject.ToolTelemetry",
            ["tool.result.binary.metadata"] = "GitHub.Copilot.ToolBinaryResult.Metadata",
            ["connect.option.connectionToken"] = "GitHub.Copilot.UriRuntimeConnection.ConnectionToken",
            ["connect.option.clientInfo"] = "GitHub.Copilot.CopilotClientOptions.ClientInfo",
            ["connect.option.gitHubTelemetry"] = "GitHub.Copilot.CopilotClientOptions.OnGitHubTelemetry",
            ["rpc.generated"] = "GitHub.Copilot.CopilotSession.Rpc",
            ["convert.roundtrip"] = "GitHub.Copilot.CopilotClient.Rpc",
            ["handler.cancel.tool"] = "Microsoft.Extensions.AI.AIFunction.InvokeAsync",
            // No request handler receives a CancellationToken in the versions published so far
            // (Holds.RequestHandlers' argument types have none).
            ["handler.cancel.permission"] = "GitHub.Copilot.PermissionInvocation.CancellationToken",
            ["handler.cancel.elicitation"] = "GitHub.Copilot.ElicitationContext.CancellationToken",
            ["handler.cancel.command"] = "GitHub.Copilot.CommandContext.CancellationToken",
        };
        // One that appears is a driver gap until the driver holds that handler and watches it.
        foreach ((string kind, Type owner, string property, string _) in Holds.RequestHandlers)
        {
            if (Holds.RequestCancelWay(owner, property) is string way)
            {
                symbols[$"handler.cancel.{kind}"] = $"driver: the held {kind} handler does not watch {way} yet";
            }
        }
        SessionOptions.Symbols(symbols);
        var missing = new JsonObject();
        foreach ((string capability, string symbol) in symbols)
        {
            if (capabilities[capability] is not JsonValue v || !v.TryGetValue(out bool declared) || !declared)
            {
                missing[capability] = symbol;
            }
        }
        return missing;
    }

    /// <summary>
    /// `--probe SYMBOL…`: whether the installed SDK assembly has each symbol (a public type, or a
    /// public member of one), as a JSON object. The capability audit's .NET probe
    /// (internal/sdks/dotnet.go) runs it: reflection is the one reader of a compiled assembly's
    /// declarations that .NET itself provides.
    /// </summary>
    private static JsonObject Probe(IEnumerable<string> symbols)
    {
        Assembly sdk = typeof(CopilotClient).Assembly;
        var result = new JsonObject();
        foreach (string symbol in symbols)
        {
            result[symbol] = HasSymbol(sdk, symbol);
        }
        return result;
    }

    private static bool HasSymbol(Assembly sdk, string symbol)
    {
        if (sdk.GetType(symbol) is { } type)
        {
            return type.IsPublic || type.IsNestedPublic;
        }
        int dot = symbol.LastIndexOf('.');
        if (dot <= 0 || sdk.GetType(symbol[..dot]) is not { } owner || !(owner.IsPublic || owner.IsNestedPublic))
        {
            return false;
        }
        const BindingFlags flags = BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static;
        return owner.GetMember(symbol[(dot + 1)..], flags).Length > 0;
    }

    /// <summary>SessionConfig's per-session GitHub token, on the SDK versions that have one.</summary>
    private static PropertyInfo? SessionTokenProperty() =>
        typeof(SessionConfig).GetProperty("GitHubToken") is { CanWrite: true } p && p.PropertyType == typeof(string) ? p : null;

    private static async Task<JsonObject> ConnectAsync(JsonObject a)
    {
        string handle = RequireString(a, "client");
        if (s_clients.ContainsKey(handle))
        {
            throw new DriverException($"client handle '{handle}' is already connected");
        }

        RuntimeConnection connection;
        if (OptionalString(a, "address") is { } address)
        {
            // RuntimeConnection.ForUri accepts "port", "host:port" or a URL; without a scheme the SDK
            // assumes https:// (it only uses host and port), so say http:// explicitly.
            connection = RuntimeConnection.ForUri(address.Contains("://", StringComparison.Ordinal) ? address : "http://" + address);
        }
        else if (OptionalString(a, "cliPath") is { } cliPath)
        {
            StdioRuntimeConnection stdio = RuntimeConnection.ForStdio(path: cliPath);
            if (a["env"] is JsonObject env)
            {
                // ChildProcessRuntimeConnection.Environment replaces the inherited environment: add to a copy.
                stdio.Environment = ChildEnvironment(env);
            }
            connection = stdio;
        }
        else
        {
            throw new DriverException("connect needs either 'address' or 'cliPath'");
        }

        var clientOptions = new CopilotClientOptions { Connection = connection, Logger = s_sdkLogger };
        ConnectOptions.Apply(a["options"] as JsonObject, clientOptions, connection, $"{PackageId} {SdkVersion()}");
        Surface.Apply(clientOptions, a["fields"], $"{PackageId} {SdkVersion()}");
        JsonObject? account = Handlers.Client(clientOptions, a["handlers"], handle, $"{PackageId} {SdkVersion()}");
        JsonObject? requests = Requests.Apply(clientOptions, a["requestHandler"], handle);
        var client = new CopilotClient(clientOptions);
        try
        {
            await client.StartAsync().ConfigureAwait(false);
        }
        catch
        {
            await ForceStopQuietlyAsync(client).ConfigureAwait(false);
            throw;
        }

        s_clients[handle] = client;
        return Opened(new JsonObject(), null, account, requests);
    }

    private static async Task<JsonObject> CreateSessionAsync(JsonObject a)
    {
        CopilotClient client = ClientFor(a);
        var state = new DriverSession(RequireString(a, "session"));
        var config = new SessionConfig
        {
            Tools = BuildTools(a, state),
            OnEvent = ev => EmitSessionEvent(state, ev),
            OnPermissionRequest = ConnectOptions.ReportingApproveAll(state.Handle, Emit),
        };
        SessionOptions.Apply(config, OptionsArg(a), resume: false, $"{PackageId} {SdkVersion()}");
        Surface.Apply(config, a["fields"], $"{PackageId} {SdkVersion()}");
        if (OptionalString(a, "gitHubToken") is { } token)
        {
            // The application's per-session token option, passed as given.
            PropertyInfo property = SessionTokenProperty()
                ?? throw new UnsupportedException($"{PackageId} {SdkVersion()}: SessionConfig has no GitHubToken");
            property.SetValue(config, token);
        }
        JsonArray? kept = Surface.ApplyHandlers(config, a["surfaceHandlers"], state.Handle, $"{PackageId} {SdkVersion()}");
        JsonObject? account = Handlers.Session(config, a["handlers"], state.Handle, $"{PackageId} {SdkVersion()}");

        CopilotSession session = await Cancel.RunAsync(a, token => client.CreateSessionAsync(config, token)).ConfigureAwait(false);

        state.Session = session;
        s_sessions[state.Handle] = state;
        return Opened(new JsonObject { ["sessionId"] = session.SessionId }, kept, account);
    }

    /// <summary>
    /// A connect / create / resume answer with the surface handlers kept and the handlers' accounts
    /// (handlers, requestHandler): lists appended, objects' entries added.
    /// </summary>
    private static JsonObject Opened(JsonObject result, JsonArray? kept, params JsonObject?[] accounts)
    {
        if (kept is { Count: > 0 })
        {
            result["kept"] = kept;
        }
        foreach (JsonObject account in accounts.OfType<JsonObject>())
        {
            foreach ((string key, JsonNode? value) in account)
            {
                switch (result[key], value)
                {
                    case (JsonArray have, JsonArray more):
                        foreach (JsonNode? item in more)
                        {
                            have.Add(item?.DeepClone());
                        }
                        break;
                    case (JsonObject have, JsonObject more):
                        foreach ((string k, JsonNode? v) in more)
                        {
                            have[k] = v?.DeepClone();
                        }
                        break;
                    default:
                        result[key] = value?.DeepClone();
                        break;
                }
            }
        }
        return result;
    }

    private static async Task<JsonObject> ResumeSessionAsync(JsonObject a)
    {
        CopilotClient client = ClientFor(a);
        var state = new DriverSession(RequireString(a, "session"));
        string sessionId = RequireString(a, "sessionId");
        var config = new ResumeSessionConfig
        {
            Tools = BuildTools(a, state),
            OnEvent = ev => EmitSessionEvent(state, ev),
            OnPermissionRequest = ConnectOptions.ReportingApproveAll(state.Handle, Emit),
        };
        SessionOptions.Apply(config, OptionsArg(a), resume: true, $"{PackageId} {SdkVersion()}");
        Surface.Apply(config, a["fields"], $"{PackageId} {SdkVersion()}");
        JsonArray? kept = Surface.ApplyHandlers(config, a["surfaceHandlers"], state.Handle, $"{PackageId} {SdkVersion()}");
        JsonObject? account = Handlers.Session(config, a["handlers"], state.Handle, $"{PackageId} {SdkVersion()}");

        CopilotSession session = await Cancel.RunAsync(a, token => client.ResumeSessionAsync(sessionId, config, token)).ConfigureAwait(false);
        state.Session = session;
        s_sessions[state.Handle] = state;
        return Opened(new JsonObject { ["sessionId"] = session.SessionId }, kept, account);
    }

    private static JsonObject? OptionsArg(JsonObject a) => a["options"] switch
    {
        null => null,
        JsonObject options => options,
        _ => throw new DriverException("'options' must be an object"),
    };

    private static async Task<JsonObject> ClearContextAsync(JsonObject a)
    {
        CopilotSession session = SessionFor(a).Session!;
        string prompt = RequireString(a, "prompt");
        var result = await session.Rpc.History.ClearContextAsync(prompt).ConfigureAwait(false);
        return new JsonObject { ["messagesCleared"] = result.MessagesCleared };
    }

    private static async Task<JsonObject> SendAsync(JsonObject a)
    {
        CopilotSession session = SessionFor(a).Session!;
        string prompt = RequireString(a, "prompt");
        bool wait = OptionalBool(a, "wait") ?? false;

        if (!wait)
        {
            string messageId = await Cancel.RunAsync(a, token => session.SendAsync(prompt, token)).ConfigureAwait(false);
            return new JsonObject { ["messageId"] = messageId };
        }

        TimeSpan? timeout = OptionalLong(a, "timeoutMs") is long ms ? TimeSpan.FromMilliseconds(ms) : null;
        AssistantMessageEvent? reply = await Cancel.RunAsync(a, token => session.SendAndWaitAsync(prompt, timeout, token)).ConfigureAwait(false);
        var result = new JsonObject();
        if (reply is not null)
        {
            result["messageId"] = reply.Data.MessageId;
            result["content"] = reply.Data.Content;
        }
        return result;
    }

    private static async Task<JsonObject> DisconnectAsync(JsonObject a)
    {
        DriverSession state = SessionFor(a);
        // DisposeAsync sends session.destroy; the session can still be resumed later.
        await state.Session!.DisposeAsync().ConfigureAwait(false);
        s_sessions.TryRemove(state.Handle, out _);
        return new JsonObject();
    }

    private static async Task<JsonObject> StopClientAsync(JsonObject a)
    {
        string handle = RequireString(a, "client");
        CopilotClient client = ClientFor(a);
        s_clients.TryRemove(handle, out _);
        // StopAsync disposes the client's remaining sessions, then closes the connection.
        await client.StopAsync().ConfigureAwait(false);
        return new JsonObject();
    }

    // ---------------------------------------------------------------- tools

    private static List<AIFunctionDeclaration> BuildTools(JsonObject a, DriverSession state)
    {
        if (a["tools"] is not JsonArray specs)
        {
            throw new DriverException("'tools' must be an array");
        }

        var tools = new List<AIFunctionDeclaration>(specs.Count);
        foreach (JsonNode? spec in specs)
        {
            tools.Add(BuildTool(spec as JsonObject ?? throw new DriverException("a tool must be an object"), state));
        }
        return tools;
    }

    // Option keys in the order they are applied when the spec's optionOrder does not list them.
    private static readonly string[] s_optionKeys =
        ["description", "parameters", "isTerminal", "overridesBuiltInTool", "skipPermission", "defer", "metadata"];

    private static AIFunction BuildTool(JsonObject spec, DriverSession state)
    {
        string name = RequireString(spec, "name");
        JsonObject handler = spec["handler"] as JsonObject ?? throw new DriverException($"tool '{name}': 'handler' must be an object");
        string action = RequireString(handler, "action");
        if (action is not ("return" or "fail" or "clearContext" or "returnValue" or "returnResult"))
        {
            throw new UnsupportedException($"the dotnet driver does not know the handler action '{action}' (tool '{name}')");
        }
        // Built now, so a field the SDK's types cannot carry is unsupported before the session opens.
        Ticket? ticket = action == "returnValue" ? ToolResults.ParseTicket(name, handler["value"]) : null;
        ToolResultObject? resultObject = action == "returnResult"
            ? ToolResults.Build($"{PackageId} {SdkVersion()}", name, handler["result"])
            : null;
        string? label = OptionalString(handler, "label");
        string text = OptionalString(handler, "text") ?? "";
        string message = OptionalString(handler, "message") ?? "";
        string prompt = OptionalString(handler, "prompt") ?? "";
        string? waitFor = OptionalString(handler, "waitFor");
        string gaveUp = $"gave up waiting for the tool {waitFor}";

        // CopilotToolOptions is a property bag, so optionOrder cannot change what the SDK builds;
        // the driver still applies the options in that order. An absent key is never set.
        var factoryOptions = new AIFunctionFactoryOptions { Name = name };
        CopilotToolOptions? toolOptions = null;
        JsonElement? schema = null;

        var order = new List<string>();
        if (spec["optionOrder"] is JsonArray listed)
        {
            foreach (JsonNode? item in listed)
            {
                if (TryGetString(item, out var key) && !order.Contains(key))
                {
                    order.Add(key);
                }
            }
        }
        foreach (string key in s_optionKeys)
        {
            if (!order.Contains(key))
            {
                order.Add(key);
            }
        }

        foreach (string key in order)
        {
            if (!spec.TryGetPropertyValue(key, out JsonNode? value))
            {
                continue;
            }
            switch (key)
            {
                case "description":
                    factoryOptions.Description = RequireString(spec, key);
                    break;
                case "parameters":
                    if (value is not JsonObject)
                    {
                        throw new DriverException($"tool '{name}': 'parameters' must be an object");
                    }
                    using (JsonDocument doc = JsonDocument.Parse(value.ToJsonString()))
                    {
                        schema = doc.RootElement.Clone();
                    }
                    break;
                case "isTerminal":
                    (toolOptions ??= new CopilotToolOptions()).IsTerminal = RequireBool(spec, key);
                    break;
                case "overridesBuiltInTool":
                    (toolOptions ??= new CopilotToolOptions()).OverridesBuiltInTool = RequireBool(spec, key);
                    break;
                case "skipPermission":
                    (toolOptions ??= new CopilotToolOptions()).SkipPermission = RequireBool(spec, key);
                    break;
                case "defer":
                    (toolOptions ??= new CopilotToolOptions()).Defer = RequireString(spec, key) switch
                    {
                        "auto" => CopilotToolDefer.Auto,
                        "never" => CopilotToolDefer.Never,
                        var other => throw new DriverException($"tool '{name}': unknown defer '{other}'"),
                    };
                    break;
                case "metadata":
                    (toolOptions ??= new CopilotToolOptions()).Metadata = ToMetadata(name, value);
                    break;
            }
        }

        void Announce(ToolInvocation invocation)
        {
            var invoked = new JsonObject { ["session"] = state.Handle, ["tool"] = name };
            if (label is not null)
            {
                invoked["label"] = label;
            }
            invoked["arguments"] = ArgumentsNode(invocation.Arguments);
            Emit("tool.invoked", invoked);
        }

        // waitFor: the handler first waits for the other tool's handler to return (false: gave up).
        Task<bool> WaitedAsync() => waitFor is null ? Task.FromResult(true) : Holds.ReturnedAsync(state.Handle, waitFor);

        // A held handler watches the token the SDK hands it and reports when it is cancelled.
        Task Held(CancellationToken cancellationToken)
        {
            long reached = Environment.TickCount64;
            return Holds.HeldAsync(state.Handle, $"tool {name}", cancellationToken, () => Emit("tool.cancelled", new JsonObject
            {
                ["session"] = state.Handle,
                ["tool"] = name,
                ["way"] = "AIFunction.InvokeAsync's CancellationToken cancelled",
                ["afterMs"] = Environment.TickCount64 - reached,
            }));
        }

        Func<ToolInvocation, CancellationToken, Task<string>> run = async (invocation, cancellationToken) =>
        {
            if (!await WaitedAsync().ConfigureAwait(false))
            {
                return gaveUp;
            }
            Announce(invocation);
            await Held(cancellationToken).ConfigureAwait(false);

            switch (action)
            {
                case "fail":
                    throw new InvalidOperationException(message);

                case "clearContext":
                    CopilotSession session = state.Session
                        ?? throw new InvalidOperationException("driver: the session is not ready yet");
                    long cleared;
                    try
                    {
                        var result = await session.Rpc.History.ClearContextAsync(prompt, cancellationToken).ConfigureAwait(false);
                        cleared = result.MessagesCleared;
                    }
                    catch (Exception ex)
                    {
                        Emit("tool.clearContext", new JsonObject { ["session"] = state.Handle, ["tool"] = name, ["error"] = ex.Message });
                        throw;
                    }
                    Emit("tool.clearContext", new JsonObject { ["session"] = state.Handle, ["tool"] = name, ["messagesCleared"] = cleared });
                    return text.Replace("{messagesCleared}", cleared.ToString(CultureInfo.InvariantCulture), StringComparison.Ordinal);

                default:
                    return text;
            }
        };

        // The ToolInvocation and CancellationToken parameters are bound by the SDK / AIFunctionFactory and
        // left out of the generated schema, so without 'parameters' the SDK sends an empty object schema.
        // A typed value is returned as the application's own class; a whole result as the SDK's
        // ToolResultAIContent. The method's return type is what the SDK sees, as in an application.
        Delegate method = action switch
        {
            "returnValue" => (Func<ToolInvocation, CancellationToken, Task<Ticket>>)(async (invocation, cancellationToken) =>
            {
                // The method returns a Ticket, which cannot say "gave up": the give-up is thrown instead.
                if (!await WaitedAsync().ConfigureAwait(false))
                {
                    throw new TimeoutException(gaveUp);
                }
                Announce(invocation);
                await Held(cancellationToken).ConfigureAwait(false);
                return ticket!;
            }),
            "returnResult" => (Func<ToolInvocation, CancellationToken, Task<ToolResultAIContent>>)(async (invocation, cancellationToken) =>
            {
                if (!await WaitedAsync().ConfigureAwait(false))
                {
                    return new ToolResultAIContent(new ToolResultObject { TextResultForLlm = gaveUp });
                }
                Announce(invocation);
                await Held(cancellationToken).ConfigureAwait(false);
                return new ToolResultAIContent(resultObject!);
            }),
            _ => run,
        };
        method = Recording(method, state.Handle, name);
        AIFunction tool = CopilotTool.DefineTool(method, toolOptions: toolOptions, factoryOptions: factoryOptions);
        if (schema is { } explicitSchema)
        {
            tool = new SchemaOverride(tool, explicitSchema);
        }
        return tool;
    }

    /// <summary>
    /// The tool method, recording its return for the handlers waiting on it (waitFor) whatever its
    /// outcome. Each delegate keeps its own signature, which is what AIFunctionFactory reads.
    /// </summary>
    private static Delegate Recording(Delegate method, string session, string tool) => method switch
    {
        Func<ToolInvocation, CancellationToken, Task<string>> f => (Func<ToolInvocation, CancellationToken, Task<string>>)(
            async (invocation, token) => { try { return await f(invocation, token).ConfigureAwait(false); } finally { Holds.MarkReturned(session, tool); } }),
        Func<ToolInvocation, CancellationToken, Task<Ticket>> f => (Func<ToolInvocation, CancellationToken, Task<Ticket>>)(
            async (invocation, token) => { try { return await f(invocation, token).ConfigureAwait(false); } finally { Holds.MarkReturned(session, tool); } }),
        Func<ToolInvocation, CancellationToken, Task<ToolResultAIContent>> f => (Func<ToolInvocation, CancellationToken, Task<ToolResultAIContent>>)(
            async (invocation, token) => { try { return await f(invocation, token).ConfigureAwait(false); } finally { Holds.MarkReturned(session, tool); } }),
        _ => method,
    };

    private static IDictionary<string, JsonNode?> ToMetadata(string tool, JsonNode? value)
    {
        if (value is not JsonObject obj)
        {
            throw new DriverException($"tool '{tool}': 'metadata' must be an object");
        }
        var metadata = new Dictionary<string, JsonNode?>(StringComparer.Ordinal);
        foreach (KeyValuePair<string, JsonNode?> entry in obj)
        {
            metadata[entry.Key] = entry.Value?.DeepClone();
        }
        return metadata;
    }

    private static JsonNode ArgumentsNode(JsonElement? arguments)
    {
        if (arguments.HasValue && arguments.Value.ValueKind is not (JsonValueKind.Undefined or JsonValueKind.Null))
        {
            return JsonNode.Parse(arguments.Value.GetRawText()) ?? new JsonObject();
        }
        return new JsonObject();
    }

    /// <summary>
    /// Gives an SDK tool the JSON schema from the harness's spec. AIFunctionFactory derives a schema
    /// from the delegate's parameters; Microsoft.Extensions.AI's DelegatingAIFunction is the library's
    /// way to present a different one. Everything else (name, AdditionalProperties carrying the Copilot
    /// options, invocation) passes through to the CopilotTool.DefineTool function.
    /// </summary>
    private sealed class SchemaOverride(AIFunction inner, JsonElement schema) : DelegatingAIFunction(inner)
    {
        public override JsonElement JsonSchema => schema;
    }

    // ---------------------------------------------------------------- events and output

    private static void EmitSessionEvent(DriverSession state, SessionEvent ev)
    {
        JsonNode? data = null;
        try
        {
            // SessionEvent.ToJson is the SDK's own (polymorphic) serialization of the event it delivered.
            if (JsonNode.Parse(ev.ToJson()) is JsonObject full && full.TryGetPropertyValue("data", out JsonNode? d))
            {
                full.Remove("data");
                data = d;
            }
        }
        catch (Exception ex)
        {
            Diag($"cannot serialize session event {ev.Type}: {ex.Message}");
        }
        Emit("session.event", new JsonObject { ["session"] = state.Handle, ["type"] = ev.Type, ["data"] = data ?? new JsonObject() });
    }

    private static void EmitLog(string message) => Emit("log", new JsonObject { ["message"] = message });

    internal static void Emit(string name, JsonObject args) => WriteLine(new JsonObject { ["event"] = name, ["args"] = args });

    private static void WriteLine(JsonObject message)
    {
        string text = LineWriter.Write(message, s_lineOptions);
        try
        {
            lock (StdoutGate)
            {
                s_stdout.Write(text);
                s_stdout.Write('\n');
                s_stdout.Flush();
            }
        }
        catch (IOException ex)
        {
            // The harness closed our stdout: nobody is listening any more.
            Diag("stdout closed: " + ex.Message);
            Environment.Exit(1);
        }
    }

    /// <summary>Why an application cannot read the JSON-RPC code or data of an error the SDK raised
    /// (capability error.rpc.code): the SDK's exception type is internal, wrapped in an IOException.</summary>
    private const string NoRpcCode = "the .NET SDK raises a JSON-RPC error as IOException wrapping RemoteRpcException, "
        + "an internal sealed class (dotnet/src/JsonRpc.cs:991 at v1.0.11 and on upstream main, wrapped at dotnet/src/Client.cs:1886 on main), "
        + "so an application cannot read its ErrorCode or ErrorData";

    private static JsonObject ErrorResponse(long id, string type, string message) => new()
    {
        ["id"] = id,
        ["outcome"] = "error",
        ["error"] = new JsonObject { ["type"] = type, ["message"] = message },
    };

    private static void Diag(string message) => Console.Error.WriteLine("[driver] " + message);

    // ---------------------------------------------------------------- handles and helpers

    private static CopilotClient ClientFor(JsonObject a)
    {
        string handle = RequireString(a, "client");
        return s_clients.TryGetValue(handle, out var client)
            ? client
            : throw new DriverException($"unknown client handle '{handle}'");
    }

    /// <summary>The SDK object an rpc call goes through: the session's or the client's.</summary>
    private static object RpcOwner(JsonObject call) =>
        call["session"] is not null ? SessionFor(call).Session! : ClientFor(call);

    private static DriverSession SessionFor(JsonObject a)
    {
        string handle = RequireString(a, "session");
        return s_sessions.TryGetValue(handle, out var state) && state.Session is not null
            ? state
            : throw new DriverException($"unknown session handle '{handle}'");
    }

    private static async Task StopAllClientsAsync()
    {
        foreach (CopilotClient client in s_clients.Values)
        {
            await ForceStopQuietlyAsync(client).ConfigureAwait(false);
        }
        s_clients.Clear();
    }

    // Closes the connection (and kills a runtime the SDK spawned) without sending anything more.
    private static async Task ForceStopQuietlyAsync(CopilotClient client)
    {
        try
        {
            Task stop = client.ForceStopAsync();
            await Task.WhenAny(stop, Task.Delay(TimeSpan.FromSeconds(3))).ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            Diag("ForceStopAsync: " + ex.Message);
        }
    }

    private static Dictionary<string, string> ChildEnvironment(JsonObject extra)
    {
        var env = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (DictionaryEntry entry in Environment.GetEnvironmentVariables())
        {
            env[(string)entry.Key] = entry.Value as string ?? "";
        }
        foreach (KeyValuePair<string, JsonNode?> entry in extra)
        {
            env[entry.Key] = TryGetString(entry.Value, out var s) ? s : entry.Value?.ToJsonString() ?? "";
        }
        env.Remove("COPILOT_SDK_DEFAULT_CONNECTION");
        return env;
    }

    /// <summary>
    /// The installed SDK version: the GitHub.Copilot.SDK entry of this build's Driver.deps.json (the NuGet
    /// package version restore resolved), else the SDK assembly's informational version.
    /// </summary>
    private static string SdkVersion()
    {
        if (s_sdkVersion is not null)
        {
            return s_sdkVersion;
        }

        string? version = null;
        try
        {
            string depsPath = Path.Combine(AppContext.BaseDirectory, "Driver.deps.json");
            if (File.Exists(depsPath) && JsonNode.Parse(File.ReadAllText(depsPath))?["libraries"] is JsonObject libraries)
            {
                foreach (KeyValuePair<string, JsonNode?> entry in libraries)
                {
                    if (entry.Key.StartsWith(PackageId + "/", StringComparison.OrdinalIgnoreCase))
                    {
                        version = entry.Key[(PackageId.Length + 1)..];
                        break;
                    }
                }
            }
        }
        catch (Exception ex)
        {
            Diag("cannot read Driver.deps.json: " + ex.Message);
        }

        if (string.IsNullOrEmpty(version))
        {
            Assembly sdk = typeof(CopilotClient).Assembly;
            version = sdk.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion
                ?? sdk.GetName().Version?.ToString()
                ?? "unknown";
            int plus = version.IndexOf('+', StringComparison.Ordinal);
            if (plus > 0)
            {
                version = version[..plus];
            }
        }

        return s_sdkVersion = version;
    }

    private static bool TryGetString(JsonNode? node, out string value)
    {
        if (node is JsonValue v && v.TryGetValue(out string? s) && s is not null)
        {
            value = s;
            return true;
        }
        value = "";
        return false;
    }

    private static bool TryGetLong(JsonNode? node, out long value)
    {
        value = 0;
        if (node is not JsonValue v)
        {
            return false;
        }
        if (v.TryGetValue(out long l))
        {
            value = l;
            return true;
        }
        if (v.TryGetValue(out double d) && d == Math.Floor(d) && d >= long.MinValue && d <= long.MaxValue)
        {
            value = (long)d;
            return true;
        }
        return false;
    }

    private static string RequireString(JsonObject o, string key) =>
        TryGetString(o[key], out var s) ? s : throw new DriverException($"'{key}' must be a string");

    private static string? OptionalString(JsonObject o, string key) =>
        o[key] is null ? null : RequireString(o, key);

    private static bool RequireBool(JsonObject o, string key) =>
        o[key] is JsonValue v && v.TryGetValue(out bool b) ? b : throw new DriverException($"'{key}' must be a boolean");

    private static bool? OptionalBool(JsonObject o, string key) =>
        o[key] is null ? (bool?)null : RequireBool(o, key);

    private static long? OptionalLong(JsonObject o, string key) =>
        o[key] is null ? (long?)null : TryGetLong(o[key], out long l) ? l : throw new DriverException($"'{key}' must be an integer");

    private static LogLevel ParseLogLevel(string? value) =>
        Enum.TryParse(value, ignoreCase: true, out LogLevel level) ? level : LogLevel.Warning;
}

/// <summary>A session handle: the SDK session, set once create/resume returns.</summary>
internal sealed class DriverSession(string handle)
{
    private volatile CopilotSession? _session;

    public string Handle { get; } = handle;

    public CopilotSession? Session
    {
        get => _session;
        set => _session = value;
    }
}

/// <summary>A command this SDK version cannot express.</summary>
internal sealed class UnsupportedException(string reason) : Exception(reason);

/// <summary>A bad command (unknown handle, malformed arguments): reported as type DriverError.</summary>
internal sealed class DriverException(string message) : Exception(message);

/// <summary>An SDK call the application cancelled ended with OperationCanceledException (inner): reported with "cancelled": true and afterCancelMs, how long the call took to end after the token was cancelled.</summary>
internal sealed class CancelledException(OperationCanceledException inner, long afterCancelMs) : Exception(inner.Message, inner)
{
    public long AfterCancelMs { get; } = afterCancelMs;
}

/// <summary>Sends the SDK's diagnostics to stderr (level from COPILOT_DRIVER_LOG, default Warning).</summary>
internal sealed class StderrLogger(LogLevel minimum) : ILogger
{
    public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => logLevel != LogLevel.None && logLevel >= minimum;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        if (!IsEnabled(logLevel))
        {
            return;
        }
        string text = formatter(state, exception);
        if (exception is not null)
        {
            text += " | " + exception;
        }
        Console.Error.WriteLine($"[GitHub.Copilot.SDK {logLevel}] {text}");
    }
}
