// The generic rpc / rpcBatch commands (drivers/PROTOCOL.md, "Generated RPC layer") for the .NET SDK.
//
// Written against GitHub.Copilot.SDK 1.0.11 (github/copilot-sdk tag v1.0.11, dotnet/src/Generated/Rpc.cs):
// CopilotClient.Rpc is a ServerRpc and CopilotSession.Rpc a SessionRpc; their public properties are
// API groups (ServerModelsApi, HistoryApi, …, nested groups too) and their public methods
// "<Name>Async(<one parameter per params key>, CancellationToken)" are the calls. Unlike the other
// SDKs the .NET wrappers take the params as separate arguments, named as the schema names the keys
// (camelCase), and build the request object internally.
//
// Not compiled or run here (no .NET on this machine): written from the public source only.
//
// The layer is found by reflection, never from a list: a schema method name matches the property
// path plus the method name without "Async", compared case-insensitively. Each params key is bound
// to the parameter of that name (an application's named argument) and its value built into the
// parameter's type by name (ByName.cs: object initializers and setters, never the SDK's
// deserializer, save the [JsonPolymorphic] unions); the typed result is serialised with
// System.Text.Json. unrepresentable lists the params pointers the arguments cannot carry as given,
// found while building: a key with no parameter or property of its name, a value of another JSON
// type, and what a decoded union's serializer does not write back.
// Limitation: the request object the wrapper builds from the arguments is internal to the SDK, so
// what it does with a null argument (the same as an omitted optional argument in C#) is not
// measured here; the harness sees it on the wire.

using System.Reflection;
using System.Text.Json;
using System.Text.Json.Nodes;
using GitHub.Copilot;

namespace Conformance.Driver;

internal static class GeneratedRpc
{
    private static readonly JsonSerializerOptions s_web = new(JsonSerializerDefaults.Web);
    private static readonly Dictionary<Type, Dictionary<string, (PropertyInfo[] Path, MethodInfo Method)>> s_indexes = new();

    /// <summary>rpc.generated and its note, from the SDK's types.</summary>
    public static void Declare(string label, JsonObject capabilities, JsonObject notes)
    {
        Type? server = typeof(CopilotClient).GetProperty("Rpc")?.PropertyType;
        Type? session = typeof(CopilotSession).GetProperty("Rpc")?.PropertyType;
        bool has = server is not null && session is not null;
        capabilities["rpc.generated"] = has;
        if (has)
        {
            // hello's driver.builtBy counts the types the wrappers' parameters take.
            foreach (var entry in Index(server!).Concat(Index(session!)))
            {
                foreach (ParameterInfo p in entry.Value.Method.GetParameters())
                {
                    ByName.Plan(p.ParameterType);
                }
            }
        }
        notes["rpc.generated"] = has
            ? $"{label}: {Index(server!).Count} client (ServerRpc) and {Index(session!).Count} session (SessionRpc) " +
              "generated wrappers found by reflection; params keys bound to the wrappers' parameters by name and built " +
              "into their types by name (ByName.cs); what the wrapper's internal request does with a null argument is not measured"
            : $"{label}: CopilotClient.Rpc / CopilotSession.Rpc not found";
    }

    public static async Task<JsonObject> RpcAsync(JsonObject call, Func<JsonObject, object> owner, string label)
    {
        var (result, lost) = await Cancel.RunAsync(call, token => CallAsync(call, owner, label, token)).ConfigureAwait(false);
        return new JsonObject { ["result"] = result, ["unrepresentable"] = Pointers(lost) };
    }

    public static async Task<JsonObject> BatchAsync(JsonObject args, Func<JsonObject, object> owner, string label)
    {
        var outcomes = new JsonArray();
        foreach (JsonNode? node in args["calls"] as JsonArray ?? throw new DriverException("rpcBatch needs calls"))
        {
            JsonObject call = node as JsonObject ?? throw new DriverException("an rpcBatch call is not an object");
            try
            {
                var (result, lost) = await CallAsync(call, owner, label, CancellationToken.None).ConfigureAwait(false);
                outcomes.Add(new JsonObject { ["outcome"] = "ok", ["result"] = result, ["unrepresentable"] = Pointers(lost) });
            }
            catch (UnsupportedException ex)
            {
                outcomes.Add(new JsonObject { ["outcome"] = "unsupported", ["reason"] = ex.Message });
            }
            catch (DriverException ex)
            {
                outcomes.Add(Error("DriverError", ex.Message));
            }
            catch (Exception ex)
            {
                Exception e = ex is TargetInvocationException { InnerException: { } inner } ? inner : ex;
                outcomes.Add(Error(e.GetType().Name, e.Message));
            }
        }
        return new JsonObject { ["outcomes"] = outcomes };
    }

    private static JsonObject Error(string type, string message) =>
        new() { ["outcome"] = "error", ["error"] = new JsonObject { ["type"] = type, ["message"] = message } };

    private static JsonArray Pointers(List<string> lost)
    {
        lost.Sort(StringComparer.Ordinal);
        var array = new JsonArray();
        foreach (string p in lost)
        {
            array.Add(p);
        }
        return array;
    }

    private static async Task<(JsonNode? Result, List<string> Lost)> CallAsync(
        JsonObject call, Func<JsonObject, object> owner, string label, CancellationToken cancellationToken)
    {
        string method = call["method"]?.GetValue<string>() ?? throw new DriverException("rpc needs a method");
        bool onSession = call["session"] is not null;
        if (onSession == (call["client"] is not null))
        {
            throw new DriverException("rpc needs exactly one of client and session");
        }
        object holder = owner(call);
        object root = holder.GetType().GetProperty("Rpc")!.GetValue(holder)!;
        string prefix = onSession ? "session." : "server.";
        string name = method.StartsWith(prefix, StringComparison.Ordinal) ? method[prefix.Length..] : method;
        if (!Index(root.GetType()).TryGetValue(name.ToLowerInvariant(), out var found))
        {
            throw new UnsupportedException($"{label}: {method} is not in this SDK's generated layer");
        }
        object target = root;
        foreach (PropertyInfo p in found.Path)
        {
            target = p.GetValue(target)!;
        }

        JsonObject given = call["params"] as JsonObject ?? new JsonObject();
        var lost = new List<string>();
        var bound = new HashSet<string>(StringComparer.Ordinal);
        ParameterInfo[] parameters = found.Method.GetParameters();
        var arguments = new object?[parameters.Length];
        for (int i = 0; i < parameters.Length; i++)
        {
            ParameterInfo p = parameters[i];
            if (p.ParameterType == typeof(CancellationToken))
            {
                arguments[i] = cancellationToken; // the command's cancelAfterMs (Cancel.cs)
                continue;
            }
            if (p.Name is { } key && given.TryGetPropertyValue(key, out JsonNode? value))
            {
                bound.Add(key);
                arguments[i] = ByName.Build(p.ParameterType, value, lost, "/" + ByName.Escape(key));
            }
            else
            {
                arguments[i] = p.HasDefaultValue ? p.DefaultValue : null;
            }
        }
        foreach (var (key, _) in given)
        {
            if (!bound.Contains(key))
            {
                lost.Add("/" + ByName.Escape(key)); // no parameter carries this key
            }
        }

        var task = (Task)found.Method.Invoke(target, arguments)!;
        await task.ConfigureAwait(false);
        Type taskType = task.GetType();
        JsonNode? result = null;
        if (taskType.IsGenericType && taskType.GetProperty("Result") is { } resultProperty &&
            resultProperty.PropertyType.FullName != "System.Threading.Tasks.VoidTaskResult")
        {
            object? value = resultProperty.GetValue(task);
            result = value is null ? null : JsonSerializer.SerializeToNode(value, value.GetType(), s_web);
        }
        return (result, lost);
    }

    private static Dictionary<string, (PropertyInfo[] Path, MethodInfo Method)> Index(Type root)
    {
        lock (s_indexes)
        {
            if (!s_indexes.TryGetValue(root, out var index))
            {
                index = new Dictionary<string, (PropertyInfo[], MethodInfo)>(StringComparer.Ordinal);
                Walk(root, "", [], index, []);
                s_indexes[root] = index;
            }
            return index;
        }
    }

    private static bool IsApi(Type t) =>
        t.Assembly == typeof(CopilotClient).Assembly && t.IsClass && (t.Name.EndsWith("Api", StringComparison.Ordinal) ||
                                                                     t.Name.EndsWith("Rpc", StringComparison.Ordinal));

    private static void Walk(Type t, string prefix, PropertyInfo[] path,
        Dictionary<string, (PropertyInfo[], MethodInfo)> index, HashSet<Type> seen)
    {
        if (!seen.Add(t))
        {
            return;
        }
        foreach (PropertyInfo p in t.GetProperties(BindingFlags.Public | BindingFlags.Instance))
        {
            if (IsApi(p.PropertyType) && p.GetIndexParameters().Length == 0)
            {
                Walk(p.PropertyType, prefix + p.Name.ToLowerInvariant() + ".", [.. path, p], index, seen);
            }
        }
        foreach (MethodInfo m in t.GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly))
        {
            if (typeof(Task).IsAssignableFrom(m.ReturnType) && m.Name.EndsWith("Async", StringComparison.Ordinal))
            {
                index[prefix + m.Name[..^"Async".Length].ToLowerInvariant()] = (path, m);
            }
        }
        seen.Remove(t);
    }
}
