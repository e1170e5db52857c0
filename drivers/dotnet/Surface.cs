// The application's surface (../PROTOCOL.md "Surface"), read by reflection from the SDK's config
// types: every public settable instance property of SessionConfig, ResumeSessionConfig and
// CopilotClientOptions, with its declared type. No property is named here; `fields` values are
// built by name (ByName.cs), never through the SDK's deserializer. Written against the
// same API as Program.cs; like the rest of this driver it is built only where a .NET 8 SDK is.

using System.Reflection;
using System.Text.Json.Nodes;
using GitHub.Copilot;

namespace Conformance.Driver;

internal static class Surface
{
    private static readonly (string Owner, Type Type)[] s_owners =
    [
        ("sessionConfig", typeof(SessionConfig)),
        ("resumeConfig", typeof(ResumeSessionConfig)),
        ("clientOptions", typeof(CopilotClientOptions)),
    ];

    private static IEnumerable<PropertyInfo> Settable(Type t) =>
        t.GetProperties(BindingFlags.Public | BindingFlags.Instance)
            .Where(p => p.CanWrite && p.SetMethod is { IsPublic: true } && p.GetIndexParameters().Length == 0)
            .OrderBy(p => p.Name, StringComparer.Ordinal);

    /// <summary>The neutral shape of a property type, for the harness's value generator.</summary>
    private static (string Shape, bool Optional) ShapeOf(Type t)
    {
        Type? under = Nullable.GetUnderlyingType(t);
        bool optional = under is not null || !t.IsValueType;
        t = under ?? t;
        if (typeof(Delegate).IsAssignableFrom(t)) return ("handler", true);
        if (t == typeof(string)) return ("string", optional);
        if (t == typeof(bool)) return ("boolean", optional);
        if (t == typeof(int) || t == typeof(long)) return ("integer", optional);
        if (t == typeof(double) || t == typeof(float)) return ("number", optional);
        if (t.IsEnum) return ("other", optional);
        if (t.IsGenericType && t.GetGenericArguments() is [var el] && typeof(System.Collections.IEnumerable).IsAssignableFrom(t))
        {
            return (el == typeof(string) ? "string[]" : "array", optional);
        }
        if (t.IsGenericType && t.GetGenericArguments().Length == 2) return ("map", optional);
        return ("object", optional);
    }

    public static JsonObject Entries()
    {
        var entries = new JsonArray();
        foreach ((string owner, Type type) in s_owners)
        {
            foreach (PropertyInfo p in Settable(type))
            {
                (string shape, bool optional) = ShapeOf(p.PropertyType);
                entries.Add(new JsonObject
                {
                    ["owner"] = owner,
                    ["name"] = p.Name,
                    ["type"] = p.PropertyType.ToString(),
                    ["kind"] = shape == "handler" ? "handler" : "field",
                    ["shape"] = shape,
                    ["optional"] = optional,
                    ["declaredBy"] = $"{type.FullName}.{p.Name}",
                });
            }
        }
        return new JsonObject { ["entries"] = entries };
    }

    /// <summary>Sets each named property of config to its JSON value, built into the property's type by name (ByName.cs).</summary>
    public static void Apply(object config, JsonNode? fields, string sdk)
    {
        if (fields is not JsonObject obj)
        {
            return;
        }
        foreach ((string name, JsonNode? value) in obj)
        {
            PropertyInfo p = Settable(config.GetType()).FirstOrDefault(x => x.Name == name)
                ?? throw new UnsupportedException($"{sdk}: {config.GetType().Name} has no property {name}");
            p.SetValue(config, ByName.Strict(p.PropertyType, value, $"{sdk}: {config.GetType().Name}.{name}"));
        }
    }
}
