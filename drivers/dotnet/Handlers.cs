// Runtime-to-SDK handlers (../PROTOCOL.md "Generated RPC layer", Runtime→SDK methods): for each
// clientSession / clientGlobal method the harness names, the SDK's public handler or provider for
// it, registered the way an application does; each reports what it received (rpc.handled), waits
// while its method is held (Holds.cs) and returns the harness's result built into the SDK's type
// by name (ByName.cs). The mapping from a schema method to the SDK's API (a provider class with
// positional arguments, an ICanvasHandler, config callbacks) is this SDK's API and is written per
// method on purpose; the hook types are read from SessionHooks by reflection (HookInputs.cs).
//
// Written against GitHub.Copilot.SDK 1.0.11 (github/copilot-sdk tag v1.0.11, dotnet/src), not
// compiled here (no .NET SDK):
//   CopilotClientOptions.OnGitHubTelemetry, .SessionFs (SessionFsConfig)          Types.cs:442, 422, 537
//   SessionConfigBase.Hooks (SessionHooks), .Providers (NamedProviderConfig
//   .BearerTokenProvider), .Canvases / .CanvasHandler, .CreateSessionFsProvider    Types.cs
//   SessionFsProvider, ISessionFsSqliteProvider, ISessionFsSqliteTransactionProvider  SessionFsProvider.cs
//   ICanvasHandler, CanvasDeclaration                                               Canvas.cs
//   ProviderTokenArgs                                                               BearerTokenProvider.cs
// NamedProviderConfig and ICanvasHandler exist in GitHub.Copilot and in GitHub.Copilot.Rpc; the
// config properties take the GitHub.Copilot ones, so those are written fully qualified.

using System.Reflection;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;
using GitHub.Copilot;
using GitHub.Copilot.Rpc;

namespace Conformance.Driver;

internal static class Handlers
{
    private const string HooksMethod = "hooks.invoke";
    private const string TelemetryMethod = "gitHubTelemetry.event";
    private const string ProviderTokenMethod = "providerToken.getToken";
    private const string FsPrefix = "sessionFs.";
    private const string RequestPrefix = "llmInference.";
    private static readonly string[] s_canvasMethods = ["canvas.open", "canvas.close", "canvas.action.invoke"];

    // What the application's handler received, re-serialised the SDK's way (its JSON-RPC options:
    // web defaults, nulls left out; the generated types carry their own [JsonPropertyName]).
    internal static readonly JsonSerializerOptions s_sdkWay = new(JsonSerializerDefaults.Web)
    {
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    /// <summary>The "handled" / "unhandled" account a command answers with (PROTOCOL.md).</summary>
    private sealed class Account
    {
        public readonly JsonArray Handled = new();
        public readonly JsonObject Unhandled = new();
        public JsonObject? UnhandledCases;
        public JsonObject? HookInputs;

        public void Add(string method) => Handled.Add(method);

        public void No(string method, string why) => Unhandled[method] = why;

        public bool Accounted(string method) =>
            Unhandled.ContainsKey(method) || Handled.Any(n => (string?)n == method);

        public JsonObject Result()
        {
            var o = new JsonObject { ["handled"] = Handled, ["unhandled"] = Unhandled };
            if (UnhandledCases is not null)
            {
                o["unhandledCases"] = UnhandledCases;
            }
            if (HookInputs is not null)
            {
                o["hookInputs"] = HookInputs;
            }
            return o;
        }
    }

    private static JsonObject? Specs(JsonNode? specs) => specs switch
    {
        null => null,
        JsonObject o => o,
        _ => throw new DriverException("'handlers' must be an object"),
    };

    private static JsonNode? ResultOf(JsonObject specs, string method) =>
        specs[method] is JsonObject spec ? spec["result"] : null;

    private static IEnumerable<JsonObject> ParamsOf(JsonObject specs, string method) =>
        specs[method] is JsonObject spec && spec["params"] is JsonArray list ? list.OfType<JsonObject>() : Enumerable.Empty<JsonObject>();

    /// <summary>
    /// Reports rpc.handled for the handle the handler was registered under (a session's, else a
    /// client's), then waits while that method is held (PROTOCOL.md "Holding a handler").
    /// </summary>
    internal static async Task ReportAsync(string? session, string? client, string method, JsonNode? received, IReadOnlyCollection<string>? unrepresentable)
    {
        var args = new JsonObject { ["method"] = method, ["params"] = received };
        if (session is not null)
        {
            args["session"] = session;
        }
        if (client is not null)
        {
            args["client"] = client;
        }
        if (unrepresentable is { Count: > 0 })
        {
            args["unrepresentable"] = new JsonArray(unrepresentable.Select(p => (JsonNode?)JsonValue.Create(p)).ToArray());
        }
        Program.Emit("rpc.handled", args);
        await Holds.HeldAsync(session ?? client ?? "", method).ConfigureAwait(false);
    }

    /// <summary>A typed value the SDK handed the application, re-serialised the SDK's way.</summary>
    internal static JsonNode? SdkWay(object? value)
    {
        if (value is null)
        {
            return null;
        }
        try
        {
            return JsonSerializer.SerializeToNode(value, value.GetType(), s_sdkWay);
        }
        catch (Exception ex) when (ex is NotSupportedException or InvalidOperationException or JsonException)
        {
            return new JsonObject { ["unserializable"] = ex.Message };
        }
    }

    // ------------------------------------------------------------------ connect

    /// <summary>
    /// The client-level handlers (connect): the telemetry callback; the session file system's
    /// client configuration (the provider itself is the session's). Null when no handlers were given.
    /// </summary>
    public static JsonObject? Client(CopilotClientOptions options, JsonNode? handlers, string client, string sdk)
    {
        if (Specs(handlers) is not { } specs)
        {
            return null;
        }
        var account = new Account();
        foreach ((string m, _) in specs)
        {
            if (m == TelemetryMethod)
            {
                options.OnGitHubTelemetry = notification => ReportAsync(null, client, TelemetryMethod, SdkWay(notification), null);
                account.Add(m);
            }
            else if (m.StartsWith(RequestPrefix, StringComparison.Ordinal))
            {
                account.No(m, $"driver: the {sdk} public API for {m} is CopilotClientOptions.RequestHandler (a CopilotRequestHandler " +
                    "serving whole HTTP exchanges, whose start/chunk acknowledgements the SDK writes itself), registered by " +
                    "connect's requestHandler (Requests.cs), not as a per-method handler");
            }
            else if (m.StartsWith(FsPrefix, StringComparison.Ordinal) && options.SessionFs is null)
            {
                // The provider answers in POSIX paths; SQLite declared so the sqlite methods reach it.
                options.SessionFs = new SessionFsConfig
                {
                    InitialWorkingDirectory = "/",
                    SessionStatePath = "/session-state",
                    Conventions = SessionFsSetProviderConventions.Posix,
                    Capabilities = new SessionFsSetProviderCapabilities { Sqlite = true },
                };
            }
        }
        return account.Result();
    }

    // ------------------------------------------------------------------ createSession / resumeSession

    /// <summary>The session's handlers, set on its config (create / resume). Null when no handlers were given.</summary>
    public static JsonObject? Session(SessionConfigBase config, JsonNode? handlers, string session, string sdk)
    {
        if (Specs(handlers) is not { } specs)
        {
            return null;
        }
        var account = new Account();
        JsonNode? Res(string method) => ResultOf(specs, method);

        // Session file system: the application's provider for the session.
        List<string> fs = specs.Select(e => e.Key).Where(m => m.StartsWith(FsPrefix, StringComparison.Ordinal)).ToList();
        if (fs.Count > 0)
        {
            config.CreateSessionFsProvider = _ => new FsProvider(session, Res);
            fs.ForEach(account.Add);
        }

        // Canvases: one declaration per canvas id the runtime will name, with its actions, and one handler.
        List<string> canvas = s_canvasMethods.Where(specs.ContainsKey).ToList();
        if (canvas.Count > 0)
        {
            var declarations = new List<CanvasDeclaration>();
            foreach (string m in canvas)
            {
                foreach (JsonObject p in ParamsOf(specs, m))
                {
                    string id = (string?)p["canvasId"] ?? "";
                    CanvasDeclaration? d = declarations.Find(x => x.Id == id);
                    if (d is null)
                    {
                        d = new CanvasDeclaration { Id = id, DisplayName = id, Description = "conformance canvas " + id };
                        declarations.Add(d);
                    }
                    if (m == "canvas.action.invoke" && (string?)p["actionName"] is { Length: > 0 } action
                        && !(d.Actions?.Any(a => a.Name == action) ?? false))
                    {
                        (d.Actions ??= new List<CanvasAction>()).Add(new CanvasAction { Name = action, Description = "conformance action " + action });
                    }
                }
            }
            config.Canvases = declarations;
            config.CanvasHandler = new DriverCanvasHandler(session, Res);
            canvas.ForEach(account.Add);
        }

        // BYOK bearer tokens: a named provider per provider name the runtime will ask for.
        if (specs.ContainsKey(ProviderTokenMethod))
        {
            var providers = config.Providers ?? new List<GitHub.Copilot.NamedProviderConfig>();
            foreach (string name in ParamsOf(specs, ProviderTokenMethod).Select(p => (string?)p["providerName"] ?? "").Distinct())
            {
                providers.Add(new GitHub.Copilot.NamedProviderConfig
                {
                    Name = name,
                    Type = "openai",
                    BaseUrl = "http://127.0.0.1:9/v1",
                    BearerTokenProvider = async args =>
                    {
                        // The callback returns the token text: every other key of the result is lost.
                        JsonNode? r = Res(ProviderTokenMethod);
                        var lost = Other(r, "token");
                        await ReportAsync(session, null, ProviderTokenMethod,
                            new JsonObject { ["providerName"] = args.ProviderName, ["sessionId"] = args.SessionId }, lost).ConfigureAwait(false);
                        return (string?)r?["token"] ?? "";
                    },
                });
            }
            config.Providers = providers;
            account.Add(ProviderTokenMethod);
        }

        // Hooks: the SessionHooks property named for each hook type the runtime will invoke
        // (preToolUse -> OnPreToolUse), a Func of the property's own input and output types.
        if (specs.ContainsKey(HooksMethod))
        {
            var hooks = new SessionHooks();
            JsonNode? output = Res(HooksMethod) is JsonObject r ? r["output"] : null;
            foreach (string type in ParamsOf(specs, HooksMethod).Select(p => (string?)p["hookType"] ?? "").Where(t => t.Length > 0).Distinct())
            {
                PropertyInfo? property = HookInputs.HookProperty(type);
                if (property is null)
                {
                    // No application hook can receive this hook type (PROTOCOL.md unhandledCases).
                    account.UnhandledCases ??= new JsonObject();
                    if (account.UnhandledCases[HooksMethod] is not JsonArray cases)
                    {
                        cases = new JsonArray();
                        account.UnhandledCases[HooksMethod] = cases;
                    }
                    cases.Add(new JsonObject
                    {
                        ["params"] = new JsonObject { ["hookType"] = type },
                        ["reason"] = $"{sdk}: {typeof(SessionHooks).FullName} has no On{char.ToUpperInvariant(type[0])}{type[1..]}",
                    });
                    continue;
                }
                (Type input, Type result) = HookInputs.Signature(property);
                Delegate hook = (Delegate)typeof(Handlers).GetMethod(nameof(Hook), BindingFlags.NonPublic | BindingFlags.Static)!
                    .MakeGenericMethod(input, result)
                    .Invoke(null, new object?[] { type, output, session })!;
                property.SetValue(hooks, hook);
                account.HookInputs ??= new JsonObject();
                account.HookInputs[type] = HookInputs.Declare(input);
            }
            config.Hooks = hooks;
            account.Add(HooksMethod);
        }

        // What no public API of this SDK registers a handler for: the generated
        // Rpc.ClientSessionApiHandlers / ClientGlobalApiHandlers have the slots, but the SDK fills
        // them only inside (CopilotSession.ClientSessionApis is internal, Session.cs:161).
        foreach ((string m, _) in specs)
        {
            if (m == TelemetryMethod || m.StartsWith(RequestPrefix, StringComparison.Ordinal) || account.Accounted(m))
            {
                continue; // client level (connect)
            }
            string ns = m[..Math.Max(m.LastIndexOf('.'), 0)];
            account.No(m, $"{sdk}: no public API registers a {m} handler (no {ns} handler, provider or callback in " +
                $"{config.GetType().Name} or CopilotClientOptions; the generated Rpc.ClientSessionApiHandlers / " +
                "ClientGlobalApiHandlers are filled only inside the SDK)");
        }
        return account.Result();
    }

    /// <summary>
    /// The application's hook of one type: it reports its input read member by member
    /// (HookInputs.Read) with the invocation's session id, and answers the harness's output built
    /// into the hook's output type by name (a key the type has no property for is unrepresentable).
    /// </summary>
    private static Func<TIn, HookInvocation, Task<TOut?>> Hook<TIn, TOut>(string type, JsonNode? output, string session)
        where TIn : class
        where TOut : class
    {
        return async (input, invocation) =>
        {
            var lost = new List<string>();
            TOut? answer = output is null ? null : ByName.Build(typeof(TOut), output, lost, "/output") as TOut;
            var received = new JsonObject
            {
                ["hookType"] = type,
                ["input"] = HookInputs.Read(input),
                ["sessionId"] = invocation.SessionId,
            };
            await ReportAsync(session, null, HooksMethod, received, lost).ConfigureAwait(false);
            return answer;
        };
    }

    /// <summary>Pointers to the keys of a result object other than those the SDK's API returns.</summary>
    internal static List<string> Other(JsonNode? result, params string[] carried)
    {
        var lost = new List<string>();
        if (result is JsonObject o)
        {
            lost.AddRange(o.Where(e => !carried.Contains(e.Key)).Select(e => "/" + ByName.Escape(e.Key)));
        }
        return lost;
    }

    /// <summary>A JSON value as the JsonElement an application returns for "any JSON".</summary>
    internal static JsonElement? Element(JsonNode? node)
    {
        if (node is null)
        {
            return null;
        }
        using JsonDocument doc = JsonDocument.Parse(node.ToJsonString());
        return doc.RootElement.Clone();
    }
}

/// <summary>
/// The application's ICanvasHandler: the requests are the generated Rpc types, reported as the
/// SDK decoded them; open answers a CanvasProviderOpenResult built by name, an action any JSON.
/// </summary>
internal sealed class DriverCanvasHandler(string session, Func<string, JsonNode?> result) : GitHub.Copilot.ICanvasHandler
{
    public async Task<CanvasProviderOpenResult> OnOpenAsync(CanvasProviderOpenRequest context, CancellationToken cancellationToken)
    {
        var lost = new List<string>();
        var answer = ByName.Build(typeof(CanvasProviderOpenResult), result("canvas.open"), lost) as CanvasProviderOpenResult;
        await Handlers.ReportAsync(session, null, "canvas.open", Handlers.SdkWay(context), lost).ConfigureAwait(false);
        return answer ?? new CanvasProviderOpenResult();
    }

    public Task OnCloseAsync(CanvasProviderCloseRequest context, CancellationToken cancellationToken) =>
        Handlers.ReportAsync(session, null, "canvas.close", Handlers.SdkWay(context), null);

    public async Task<object?> OnActionAsync(CanvasProviderInvokeActionRequest context, CancellationToken cancellationToken)
    {
        JsonElement? answer = Handlers.Element(result("canvas.action.invoke"));
        await Handlers.ReportAsync(session, null, "canvas.action.invoke", Handlers.SdkWay(context), null).ConfigureAwait(false);
        return answer;
    }
}

/// <summary>
/// The application's session file system (SessionFsProvider with both SQLite interfaces): each call
/// reports its positional arguments under the schema's names and returns the harness's result, or
/// throws its error where the provider API has one (the SDK turns a FileNotFoundException into
/// ENOENT, every other exception into UNKNOWN, with the exception's message; SessionFsProvider.cs).
/// </summary>
internal sealed class FsProvider(string session, Func<string, JsonNode?> result)
    : SessionFsProvider, ISessionFsSqliteProvider, ISessionFsSqliteTransactionProvider
{
    private const string Prefix = "sessionFs.";

    /// <summary>
    /// The result of method and the pointers the provider API cannot return: keys other than those
    /// it carries; with an error (thrown), everything but the error, and an error code other than
    /// the two the SDK maps exceptions to.
    /// </summary>
    private static (JsonNode? Result, Exception? Error, List<string> Lost) Answer(JsonNode? r, params string[] carried)
    {
        if (r is JsonObject o && o["error"] is JsonObject error)
        {
            List<string> lost = Handlers.Other(r, "error");
            string code = (string?)error["code"] ?? "";
            string message = (string?)error["message"] ?? "";
            if (code is not ("ENOENT" or "UNKNOWN"))
            {
                lost.Add("/error/code");
            }
            lost.AddRange(Handlers.Other(error, "code", "message").Select(p => "/error" + p));
            Exception ex = code == "ENOENT" ? new FileNotFoundException(message) : new IOException(message);
            return (r, ex, lost);
        }
        return (r, null, Handlers.Other(r, carried));
    }

    /// <summary>Reports the call, then throws the harness's error or returns its result.</summary>
    private async Task<JsonNode?> CallAsync(string method, JsonObject received, params string[] carried)
    {
        (JsonNode? r, Exception? error, List<string> lost) = Answer(result(Prefix + method), carried);
        await Handlers.ReportAsync(session, null, Prefix + method, received, lost).ConfigureAwait(false);
        if (error is not null)
        {
            throw error;
        }
        return r;
    }

    private static JsonObject Named(params (string Name, object? Value)[] args)
    {
        var o = new JsonObject();
        foreach ((string name, object? value) in args)
        {
            if (value is not null)
            {
                o[name] = Handlers.SdkWay(value);
            }
        }
        return o;
    }

    protected override async Task<string> ReadFileAsync(string path, CancellationToken cancellationToken)
    {
        JsonNode? r = await CallAsync("readFile", Named(("path", path)), "content").ConfigureAwait(false);
        return (string?)r?["content"] ?? "";
    }

    protected override Task WriteFileAsync(string path, string content, int? mode, CancellationToken cancellationToken) =>
        CallAsync("writeFile", Named(("path", path), ("content", content), ("mode", mode)));

    protected override Task AppendFileAsync(string path, string content, int? mode, CancellationToken cancellationToken) =>
        CallAsync("appendFile", Named(("path", path), ("content", content), ("mode", mode)));

    protected override async Task<bool> ExistsAsync(string path, CancellationToken cancellationToken)
    {
        JsonNode? r = await CallAsync("exists", Named(("path", path)), "exists").ConfigureAwait(false);
        return (bool?)r?["exists"] ?? false;
    }

    protected override async Task<SessionFsStatResult> StatAsync(string path, CancellationToken cancellationToken)
    {
        // The provider returns the SDK's own result type, error included: built whole, by name.
        var lost = new List<string>();
        var stat = ByName.Build(typeof(SessionFsStatResult), result(Prefix + "stat"), lost) as SessionFsStatResult;
        await Handlers.ReportAsync(session, null, Prefix + "stat", Named(("path", path)), lost).ConfigureAwait(false);
        return stat ?? new SessionFsStatResult();
    }

    protected override Task MakeDirectoryAsync(string path, bool recursive, int? mode, CancellationToken cancellationToken) =>
        CallAsync("mkdir", Named(("path", path), ("recursive", recursive), ("mode", mode)));

    protected override async Task<IList<string>> ReadDirectoryAsync(string path, CancellationToken cancellationToken)
    {
        JsonNode? r = await CallAsync("readdir", Named(("path", path)), "entries").ConfigureAwait(false);
        return r?["entries"] is JsonArray entries ? entries.Select(e => (string?)e ?? "").ToList() : new List<string>();
    }

    protected override async Task<IList<SessionFsReaddirWithTypesEntry>> ReadDirectoryWithTypesAsync(string path, CancellationToken cancellationToken)
    {
        JsonNode? r = result(Prefix + "readdirWithTypes");
        (_, Exception? error, List<string> lost) = Answer(r, "entries");
        var entries = error is null
            ? ByName.Build(typeof(List<SessionFsReaddirWithTypesEntry>), r?["entries"] ?? new JsonArray(), lost, "/entries") as List<SessionFsReaddirWithTypesEntry>
            : null;
        await Handlers.ReportAsync(session, null, Prefix + "readdirWithTypes", Named(("path", path)), lost).ConfigureAwait(false);
        if (error is not null)
        {
            throw error;
        }
        return entries ?? new List<SessionFsReaddirWithTypesEntry>();
    }

    protected override Task RemoveAsync(string path, bool recursive, bool force, CancellationToken cancellationToken) =>
        CallAsync("rm", Named(("path", path), ("recursive", recursive), ("force", force)));

    protected override Task RenameAsync(string src, string dest, CancellationToken cancellationToken) =>
        CallAsync("rename", Named(("src", src), ("dest", dest)));

    async Task<SessionFsSqliteResult?> ISessionFsSqliteProvider.QueryAsync(
        SessionFsSqliteQueryType queryType, string query, IDictionary<string, object?>? bindParams, CancellationToken cancellationToken)
    {
        JsonNode? r = result(Prefix + "sqliteQuery");
        // Without an error, the application's SessionFsSqliteResult (built by name) says what it carries.
        (_, Exception? error, List<string> lost) = Answer(r, r is JsonObject all ? all.Select(e => e.Key).ToArray() : Array.Empty<string>());
        var answer = error is null ? ByName.Build(typeof(SessionFsSqliteResult), r, lost) as SessionFsSqliteResult : null;
        JsonObject received = Named(("queryType", queryType.Value), ("query", query), ("params", bindParams));
        await Handlers.ReportAsync(session, null, Prefix + "sqliteQuery", received, lost).ConfigureAwait(false);
        if (error is not null)
        {
            throw error;
        }
        return answer;
    }

    async Task<bool> ISessionFsSqliteProvider.ExistsAsync(CancellationToken cancellationToken)
    {
        JsonNode? r = await CallAsync("sqliteExists", new JsonObject(), "exists").ConfigureAwait(false);
        return (bool?)r?["exists"] ?? false;
    }

    async Task<IList<SessionFsSqliteResult>> ISessionFsSqliteTransactionProvider.TransactionAsync(
        IList<SessionFsSqliteStatement> statements, CancellationToken cancellationToken)
    {
        JsonNode? r = result(Prefix + "sqliteTransaction");
        var lost = new List<string>();
        Exception? error = null;
        List<SessionFsSqliteResult>? results = null;
        if (r is JsonObject o && o["error"] is JsonObject e)
        {
            // The transaction's own exception carries the error class (SessionFsProvider.cs).
            lost.AddRange(Handlers.Other(r, "error"));
            var errorClass = ByName.Build(typeof(SessionFsSqliteTransactionErrorClass), e["errorClass"], lost, "/error/errorClass");
            lost.AddRange(Handlers.Other(e, "errorClass", "message").Select(p => "/error" + p));
            error = errorClass is SessionFsSqliteTransactionErrorClass c
                ? (Exception)new SessionFsSqliteTransactionException((string?)e["message"] ?? "", c)
                : new IOException((string?)e["message"] ?? "");
        }
        else
        {
            lost.AddRange(Handlers.Other(r, "results"));
            results = ByName.Build(typeof(List<SessionFsSqliteResult>), r?["results"] ?? new JsonArray(), lost, "/results") as List<SessionFsSqliteResult>;
        }
        var received = new JsonArray(statements.Select(s => (JsonNode?)Named(("queryType", s.QueryType.Value), ("query", s.Query), ("params", s.Params))).ToArray());
        await Handlers.ReportAsync(session, null, Prefix + "sqliteTransaction", new JsonObject { ["statements"] = received }, lost).ConfigureAwait(false);
        if (error is not null)
        {
            throw error;
        }
        return results ?? new List<SessionFsSqliteResult>();
    }
}
