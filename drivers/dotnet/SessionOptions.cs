// Session options (drivers/PROTOCOL.md "Session options") and tool results ("Tool results") for
// the .NET driver.
//
// Written against GitHub.Copilot.SDK 1.0.11 (github/copilot-sdk tag v1.0.11, dotnet/src):
//   SessionConfigBase / SessionConfig / ResumeSessionConfig properties           Types.cs
//   ToolResultObject, ToolBinaryResult, ToolBinaryResultType                     Types.cs
//   ToolResultAIContent (a tool returns it to hand the SDK a whole result)      Client.cs
//   ToolResultObject.ConvertFromInvocationResult: ToolResultAIContent is passed
//   through, any other value is JSON-serialized as textResultForLlm              Types.cs

using System.Reflection;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;
using GitHub.Copilot;
using GitHub.Copilot.Rpc;

namespace Conformance.Driver;

internal static class SessionOptions
{
    /// <summary>A protocol option, the config property that takes it, and whether only ResumeSessionConfig has it.</summary>
    private sealed record Option(string Name, string Property, bool ResumeOnly = false, bool Handler = false);

    private static readonly Option[] s_all =
    [
        new("model", "Model"),
        new("reasoningEffort", "ReasoningEffort"),
        new("systemMessage", "SystemMessage"),
        new("availableTools", "AvailableTools"),
        new("excludedTools", "ExcludedTools"),
        new("streaming", "Streaming"),
        new("includeSubAgentStreamingEvents", "IncludeSubAgentStreamingEvents"),
        new("workingDirectory", "WorkingDirectory"),
        new("customAgents", "CustomAgents"),
        new("mcpServers", "McpServers"),
        new("configDiscovery", "EnableConfigDiscovery"),
        new("skillDirectories", "SkillDirectories"),
        new("disabledSkills", "DisabledSkills"),
        new("infiniteSessions", "InfiniteSessions"),
        new("provider", "Provider"),
        new("userInputHandler", "OnUserInputRequest", Handler: true),
        new("elicitationHandler", "OnElicitationRequest", Handler: true),
        new("hooks", "Hooks", Handler: true),
        new("continuePendingWork", "ContinuePendingWork", ResumeOnly: true),
        new("suppressResumeEvent", "SuppressResumeEvent", ResumeOnly: true),
    ];

    private static PropertyInfo? Property(Type config, string name) =>
        config.GetProperty(name, BindingFlags.Public | BindingFlags.Instance) is { CanWrite: true } p ? p : null;

    /// <summary>session.option.* capabilities and notes, read from the installed SDK's config classes.</summary>
    public static void Declare(string sdk, JsonObject capabilities, JsonObject notes)
    {
        foreach (Option o in s_all)
        {
            bool onCreate = Property(typeof(SessionConfig), o.Property) is not null;
            bool onResume = Property(typeof(ResumeSessionConfig), o.Property) is not null;
            bool ok = o.ResumeOnly ? onResume : onCreate && onResume;
            capabilities["session.option." + o.Name] = ok;
            if (!ok)
            {
                string where = !onResume || o.ResumeOnly ? nameof(ResumeSessionConfig) : nameof(SessionConfig);
                notes["session.option." + o.Name] = $"{sdk}: {where} has no {o.Property}";
            }
        }
        notes["session.option.streaming"] =
            $"{sdk}: SessionConfigBase.Streaming is a bool?, but CopilotClient sends streaming only when it is true " +
            "(config.Streaming is true ? true : null), so an explicit false is left out";
        if (Property(typeof(ResumeSessionConfig), "SuppressResumeEvent")?.PropertyType == typeof(bool))
        {
            notes["session.option.suppressResumeEvent"] =
                $"{sdk}: ResumeSessionConfig.SuppressResumeEvent is a plain bool, so false and unset are the same";
        }
    }

    /// <summary>The config property whose absence makes each session.option.* false (PROTOCOL.md "Capability audit").</summary>
    public static void Symbols(IDictionary<string, string> symbols)
    {
        foreach (Option o in s_all)
        {
            bool onCreate = Property(typeof(SessionConfig), o.Property) is not null;
            string where = o.ResumeOnly || onCreate ? nameof(ResumeSessionConfig) : nameof(SessionConfig);
            symbols["session.option." + o.Name] = $"GitHub.Copilot.{where}.{o.Property}";
        }
    }

    /// <summary>
    /// Sets each option on the config object through its property, the JSON built into the
    /// property's declared type by name (ByName.cs: a key the SDK type cannot carry is unsupported,
    /// not silently dropped); handler options install a handler that answers nothing useful.
    /// </summary>
    public static void Apply(SessionConfigBase config, JsonObject? options, bool resume, string sdk)
    {
        if (options is null)
        {
            return;
        }
        foreach ((string name, JsonNode? value) in options)
        {
            Option o = Array.Find(s_all, x => x.Name == name)
                ?? throw new UnsupportedException($"the dotnet driver does not know the session option \"{name}\"");
            if (o.ResumeOnly && !resume)
            {
                throw new DriverException($"session option {name} exists on resume only");
            }
            PropertyInfo property = Property(config.GetType(), o.Property)
                ?? throw new UnsupportedException($"{sdk}: {config.GetType().Name} has no {o.Property} (session option {name})");
            object? arg;
            if (o.Handler)
            {
                if (value is not JsonValue v || !v.TryGetValue(out bool on) || !on)
                {
                    throw new DriverException($"session option {name} takes true (install a handler)");
                }
                arg = NoAnswerHandler(name);
            }
            else
            {
                arg = ByName.Strict(property.PropertyType, value, $"{sdk}: session option {name}");
            }
            property.SetValue(config, arg);
        }
    }

    /// <summary>The handler behind a handler option (PROTOCOL.md): the first choice, a cancel, no hook output.</summary>
    private static object NoAnswerHandler(string option) => option switch
    {
        // PROTOCOL.md: the first choice, or "ok" as free text when there are no choices.
        "userInputHandler" => (Func<UserInputRequest, UserInputInvocation, Task<UserInputResponse>>)(
            (request, _) => Task.FromResult(request.Choices is { Count: > 0 } choices
                ? new UserInputResponse { Answer = choices[0], WasFreeform = false }
                : new UserInputResponse { Answer = "ok", WasFreeform = true })),
        "elicitationHandler" => (Func<ElicitationContext, Task<ElicitationResult>>)(
            _ => Task.FromResult(new ElicitationResult { Action = UIElicitationResponseAction.Cancel })),
        "hooks" => new SessionHooks
        {
            OnPreToolUse = (_, _) => Task.FromResult<PreToolUseHookOutput?>(null),
        },
        _ => throw new DriverException($"no handler for session option {option}"),
    };
}

/// <summary>
/// The structured value of a <c>returnValue</c> handler as a .NET application declares it: a
/// class with a Guid, a DateTimeOffset and a string enum, returned from the tool method so the
/// SDK's own serialization is what reaches the wire.
/// </summary>
internal sealed class Ticket
{
    [JsonPropertyName("id")]
    public Guid Id { get; set; }

    [JsonPropertyName("at")]
    public DateTimeOffset At { get; set; }

    [JsonPropertyName("status")]
    public TicketStatus Status { get; set; }

    [JsonPropertyName("count")]
    public long Count { get; set; }

    [JsonPropertyName("tags")]
    public List<string> Tags { get; set; } = [];
}

[JsonConverter(typeof(TicketStatusConverter))]
internal enum TicketStatus
{
    Open,
    Closed,
}

/// <summary>"open" / "closed" on the wire (JsonStringEnumMemberName needs .NET 9; the driver targets net8.0).</summary>
internal sealed class TicketStatusConverter() : JsonStringEnumConverter<TicketStatus>(JsonNamingPolicy.CamelCase, allowIntegerValues: false);

internal static class ToolResults
{
    /// <summary>The application's Ticket, built by name like the SDK's values (ByName.cs).</summary>
    public static Ticket ParseTicket(string tool, JsonNode? value)
    {
        if (value is not JsonObject)
        {
            throw new DriverException($"tool '{tool}': handler.value must be an object (id, at, status, count, tags)");
        }
        var lost = new List<string>();
        object? built = ByName.Build(typeof(Ticket), value, lost);
        if (built is not Ticket ticket || lost.Count > 0)
        {
            throw new DriverException($"tool '{tool}': a Ticket (id, at, status, count, tags) cannot carry {string.Join(", ", lost)}");
        }
        return ticket;
    }

    /// <summary>
    /// The SDK's ToolResultObject built by name from the wire fields given (ByName.cs). A field its
    /// type (or ToolBinaryResult) cannot carry is unsupported, found when the tool is built.
    /// </summary>
    public static ToolResultObject Build(string sdk, string tool, JsonNode? node)
    {
        if (node is not JsonObject r)
        {
            throw new DriverException($"tool '{tool}': handler.result must be an object");
        }
        return (ToolResultObject)ByName.Strict(typeof(ToolResultObject), r, $"{sdk}: tool {tool}, handler.result")!;
    }
}

/// <summary>Connect options (PROTOCOL.md "Connect options") and the reporting permission handler.</summary>
internal static class ConnectOptions
{
    private static readonly JsonSerializerOptions s_web = new(JsonSerializerDefaults.Web);

    /// <summary>connect.option.* capabilities, read from the installed SDK's option types.</summary>
    public static void Declare(string sdk, JsonObject capabilities, JsonObject notes)
    {
        bool token = typeof(UriRuntimeConnection).GetProperty("ConnectionToken") is { CanWrite: true };
        bool clientInfo = typeof(CopilotClientOptions).GetProperty("ClientInfo") is { CanWrite: true };
        bool telemetry = typeof(CopilotClientOptions).GetProperty("OnGitHubTelemetry") is { CanWrite: true };
        capabilities["connect.option.connectionToken"] = token;
        capabilities["connect.option.clientInfo"] = clientInfo;
        capabilities["connect.option.gitHubTelemetry"] = telemetry;
        if (!clientInfo)
        {
            notes["connect.option.clientInfo"] = $"{sdk}: CopilotClientOptions has no ClientInfo";
        }
        if (!token)
        {
            notes["connect.option.connectionToken"] = $"{sdk}: UriRuntimeConnection has no ConnectionToken";
        }
        notes["connect.option.gitHubTelemetry"] =
            $"{sdk}: CopilotClientOptions.OnGitHubTelemetry ([Experimental(\"GHCP001\")]), a callback that accepts every notification";
        capabilities["handler.permission"] = true;
        capabilities["surface"] = true;
        notes["handler.permission"] =
            $"{sdk}: PermissionHandler.ApproveAll wrapped to report the PermissionRequest it received, serialized by System.Text.Json";
    }

    /// <summary>Sets the options on the client options and the connection; unknown ones are unsupported.</summary>
    public static void Apply(JsonObject? options, CopilotClientOptions client, RuntimeConnection connection, string sdk)
    {
        if (options is null)
        {
            return;
        }
        foreach ((string name, JsonNode? value) in options)
        {
            switch (name)
            {
                case "connectionToken":
                    if (connection is not UriRuntimeConnection uri)
                    {
                        throw new UnsupportedException($"{sdk}: a connection token is set on UriRuntimeConnection (TCP) only");
                    }
                    uri.ConnectionToken = (string?)value ?? throw new DriverException("connectionToken must be a string");
                    break;
                case "clientInfo":
                    PropertyInfo info = typeof(CopilotClientOptions).GetProperty("ClientInfo") is { CanWrite: true } p
                        ? p
                        : throw new UnsupportedException($"{sdk}: CopilotClientOptions has no ClientInfo (connect option clientInfo)");
                    info.SetValue(client, ByName.Strict(info.PropertyType, value, $"{sdk}: connect option clientInfo"));
                    break;
                case "gitHubTelemetry":
                    if (value is not JsonValue v || !v.TryGetValue(out bool on) || !on)
                    {
                        throw new DriverException("connect option gitHubTelemetry takes true");
                    }
                    client.OnGitHubTelemetry = _ => Task.CompletedTask;
                    break;
                default:
                    throw new UnsupportedException($"the dotnet driver does not know the connect option \"{name}\"");
            }
        }
    }

    /// <summary>
    /// The SDK's approve-all permission handler, wrapped to report what the application's handler
    /// received (permission.requested, PROTOCOL.md "Requests from the runtime").
    /// </summary>
    public static Func<PermissionRequest, PermissionInvocation, Task<PermissionDecision>> ReportingApproveAll(
        string session, Action<string, JsonObject> emit) =>
        (request, invocation) =>
        {
            JsonNode? seen;
            try
            {
                seen = JsonSerializer.SerializeToNode(request, request.GetType(), s_web);
            }
            catch (Exception ex) when (ex is JsonException or NotSupportedException or InvalidOperationException)
            {
                seen = new JsonObject { ["unserializable"] = ex.Message };
            }
            emit("permission.requested", new JsonObject { ["session"] = session, ["request"] = seen });
            return PermissionHandler.ApproveAll(request, invocation);
        };
}
