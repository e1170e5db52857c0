// Held handlers (PROTOCOL.md "Holding a handler"): `hold` arms a gate per (handle, kind), a kind
// being a runtime-to-SDK method or "tool NAME"; a handler reached under an armed gate reports as
// usual, then awaits the gate until `release` opens it, as an application awaiting something slow
// does. GiveUp bounds the wait should the release never come.

using System.Collections.Concurrent;
using System.Reflection;
using System.Text.Json.Nodes;

namespace Conformance.Driver;

internal static class Holds
{
    private static readonly TimeSpan GiveUp = TimeSpan.FromSeconds(30);

    private static readonly ConcurrentDictionary<string, TaskCompletionSource> Gates = new(StringComparer.Ordinal);

    private static IEnumerable<string> Keys(JsonObject a)
    {
        string kind = a["method"] is JsonValue m && m.TryGetValue(out string? method)
            ? method
            : $"tool {(string?)a["tool"]}";
        foreach (string k in new[] { "session", "client" })
        {
            if (a[k] is JsonValue v && v.TryGetValue(out string? handle))
            {
                yield return $"{handle}\0{kind}";
            }
        }
    }

    public static Task<JsonObject> Hold(JsonObject a)
    {
        foreach (string k in Keys(a))
        {
            Gates.GetOrAdd(k, _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));
        }
        return Task.FromResult(new JsonObject());
    }

    public static Task<JsonObject> Release(JsonObject a)
    {
        foreach (string k in Keys(a))
        {
            if (Gates.TryRemove(k, out TaskCompletionSource? gate))
            {
                gate.TrySetResult();
            }
        }
        return Task.FromResult(new JsonObject());
    }

    /// <summary>Completes once no gate is armed for the handle and kind (at once when none is).
    /// <paramref name="told"/> runs the moment <paramref name="cancellation"/> (the token the SDK
    /// hands the tool function) is cancelled while the handler waits, which is how the SDK tells it
    /// that the runtime resolved its call; the handler goes on waiting for its release, so that the
    /// SDK's dropping of the late answer is judged too.</summary>
    public static async Task HeldAsync(string handle, string kind, CancellationToken cancellation = default, Action? told = null)
    {
        if (Gates.TryGetValue($"{handle}\0{kind}", out TaskCompletionSource? gate))
        {
            using CancellationTokenRegistration watch = told is null ? default : cancellation.Register(told);
            await Task.WhenAny(gate.Task, Task.Delay(GiveUp)).ConfigureAwait(false);
        }
    }

    // Tool handlers that wait for another tool's handler to return (PROTOCOL.md "Tool", waitFor):
    // one TaskCompletionSource per (session, tool), completed when that tool's handler returns.
    // WaitGiveUp bounds a wait, so that an SDK serving one call at a time still gets an answer.
    private static readonly TimeSpan WaitGiveUp = TimeSpan.FromSeconds(5);

    private static readonly ConcurrentDictionary<string, TaskCompletionSource> Returned = new(StringComparer.Ordinal);

    private static TaskCompletionSource ReturnedGate(string session, string tool) =>
        Returned.GetOrAdd($"{session}\0{tool}", _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));

    /// <summary>Records that the handler of tool has returned in session (whatever its outcome).</summary>
    public static void MarkReturned(string session, string tool) => ReturnedGate(session, tool).TrySetResult();

    /// <summary>Waits until the handler of tool has returned in session; false after WaitGiveUp.</summary>
    public static async Task<bool> ReturnedAsync(string session, string tool)
    {
        Task returned = ReturnedGate(session, tool).Task;
        return await Task.WhenAny(returned, Task.Delay(WaitGiveUp)).ConfigureAwait(false) == returned;
    }

    /// <summary>Whether the SDK's tool function receives a CancellationToken (AIFunction.InvokeAsync
    /// takes one): the way a tool handler learns that its call was resolved (capability
    /// handler.cancel.tool).</summary>
    public static bool ToolCancelWay() => typeof(Microsoft.Extensions.AI.AIFunction).GetMethods()
        .Any(m => m.Name == "InvokeAsync" && m.GetParameters().Any(p => p.ParameterType == typeof(CancellationToken)));

    /// <summary>The handlers of the request events (PROTOCOL.md "Holding a handler", capability
    /// handler.cancel.&lt;kind&gt;): the capability's last word, the type and delegate property that
    /// carries the handler, and the argument type the audit names should it gain a token.</summary>
    public static readonly (string Kind, Type Owner, string Property, string Argument)[] RequestHandlers =
    {
        ("permission", typeof(GitHub.Copilot.SessionConfig), "OnPermissionRequest", "GitHub.Copilot.PermissionInvocation"),
        ("elicitation", typeof(GitHub.Copilot.SessionConfig), "OnElicitationRequest", "GitHub.Copilot.ElicitationContext"),
        ("command", typeof(GitHub.Copilot.CommandDefinition), "Handler", "GitHub.Copilot.CommandContext"),
    };

    /// <summary>Where the SDK would hand the handler of a request kind a CancellationToken (how it
    /// could tell it that the runtime resolved its request): a parameter of the delegate, or a
    /// property of one of its argument types; null when it has none. Read by reflection on the
    /// installed SDK's delegate type, never listed.</summary>
    public static string? RequestCancelWay(Type owner, string property)
    {
        MethodInfo? invoke = owner.GetProperty(property)?.PropertyType.GetMethod("Invoke");
        foreach (ParameterInfo p in invoke?.GetParameters() ?? Array.Empty<ParameterInfo>())
        {
            if (p.ParameterType == typeof(CancellationToken))
            {
                return $"{owner.Name}.{property}'s CancellationToken parameter";
            }
            foreach (PropertyInfo member in p.ParameterType.GetProperties())
            {
                if (member.PropertyType == typeof(CancellationToken))
                {
                    return $"{p.ParameterType.Name}.{member.Name}";
                }
            }
        }
        return null;
    }
}
