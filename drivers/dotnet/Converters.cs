// The convert command (drivers/PROTOCOL.md "Generated RPC layer", Converters) for the .NET SDK: a
// value of one of the SDK's generated classes, found by its name among the SDK assembly's exported
// classes (the generated GitHub.Copilot.Rpc namespace first), built by name (ByName.cs: object
// initializers, setters, the constructor whose parameters the keys name), written to JSON with
// System.Text.Json and read back with it, the converters an application calls on these classes
// (their [JsonPropertyName] attributes decide the wire names; the options are the web defaults an
// application passes, as the rpc command's results are serialised).
//
// Not compiled or run here (no .NET on this machine): written from the public source only;
// drivers/dotnet_source_test.go reads it.

using System.Reflection;
using System.Text.Json;
using System.Text.Json.Nodes;
using GitHub.Copilot;

namespace Conformance.Driver;

internal static class Converters
{
    private static readonly JsonSerializerOptions s_web = new(JsonSerializerDefaults.Web);
    private static Dictionary<string, Type>? s_types;

    /// <summary>The SDK assembly's exported, concrete classes by name; a name declared twice keeps the generated Rpc namespace's.</summary>
    private static Dictionary<string, Type> Types()
    {
        if (s_types is { } cached)
        {
            return cached;
        }
        var types = new Dictionary<string, Type>(StringComparer.Ordinal);
        foreach (Type t in typeof(CopilotClient).Assembly.GetExportedTypes())
        {
            if (!t.IsClass || t.IsAbstract || t.IsGenericTypeDefinition || t.IsNested)
            {
                continue;
            }
            if (!types.TryGetValue(t.Name, out Type? seen) || (seen.Namespace != "GitHub.Copilot.Rpc" && t.Namespace == "GitHub.Copilot.Rpc"))
            {
                types[t.Name] = t;
            }
        }
        s_types = types;
        return types;
    }

    /// <summary>convert.roundtrip and its note, from the SDK's types.</summary>
    public static void Declare(string label, JsonObject capabilities, JsonObject notes)
    {
        int generated = Types().Values.Count(t => t.Namespace == "GitHub.Copilot.Rpc");
        capabilities["convert.roundtrip"] = generated > 0;
        notes["convert.roundtrip"] = generated > 0
            ? $"{label}: {generated} generated classes of GitHub.Copilot.Rpc (and the assembly's other exported classes) by name, " +
              "built by name (ByName.cs), written and read back with System.Text.Json (JsonSerializerDefaults.Web)"
            : $"{label}: the assembly exports no class of GitHub.Copilot.Rpc";
    }

    public static Task<JsonObject> ConvertAsync(JsonObject args, string label)
    {
        var outcomes = new JsonArray();
        foreach (JsonNode? node in args["values"] as JsonArray ?? throw new DriverException("convert needs values"))
        {
            JsonObject value = node as JsonObject ?? throw new DriverException("a convert value is not an object");
            outcomes.Add(One(value["type"]?.GetValue<string>() ?? "", value["value"], label));
        }
        return Task.FromResult(new JsonObject { ["outcomes"] = outcomes });
    }

    private static JsonObject Error(string type, string message) => new() { ["type"] = type, ["message"] = message };

    private static JsonObject Raised(Exception ex)
    {
        Exception e = ex is TargetInvocationException { InnerException: { } inner } ? inner : ex;
        return Error(e.GetType().Name, e.Message);
    }

    private static JsonObject One(string name, JsonNode? value, string label)
    {
        if (!Types().TryGetValue(name, out Type? type))
        {
            return new JsonObject { ["outcome"] = "unsupported", ["reason"] = $"{label}: the assembly exports no class {name}" };
        }
        var lost = new List<string>();
        object? built;
        try
        {
            built = ByName.Build(type, value?.DeepClone(), lost);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            return new JsonObject { ["outcome"] = "error", ["error"] = Error("DriverError", $"cannot build {name} by name: {ex.Message}") };
        }
        JsonNode? written;
        try
        {
            written = JsonSerializer.SerializeToNode(built, type, s_web);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            return new JsonObject { ["outcome"] = "error", ["error"] = Raised(ex) };
        }
        var unrepresentable = new JsonArray();
        foreach (string p in lost.Distinct().OrderBy(p => p, StringComparer.Ordinal))
        {
            unrepresentable.Add(p);
        }
        var outcome = new JsonObject
        {
            ["outcome"] = "ok",
            ["json"] = written?.DeepClone(),
            ["unrepresentable"] = unrepresentable,
        };
        try
        {
            object? back = JsonSerializer.Deserialize(written?.ToJsonString() ?? "null", type, s_web);
            outcome["back"] = JsonSerializer.SerializeToNode(back, type, s_web);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            outcome["readError"] = Raised(ex);
        }
        return outcome;
    }
}
