// Hook inputs (../PROTOCOL.md "Runtime→SDK methods", hookInputs; capability handler.hooks.inputs):
// each hook of SessionHooks is a Func<TInput, HookInvocation, Task<TOutput?>> property named
// On<HookType> (Types.cs:1998 at v1.0.11). The input type's members are read by reflection: each
// public readable property, under the key the SDK reads it from (its [JsonPropertyName], else the
// camelCase name of the SDK's JsonSerializerDefaults.Web contexts), optional when its type is
// Nullable<T> or annotated nullable. The hook reports its input property by property, as an
// application reads it, never re-serialised whole: a type serialised by the same attributes it was
// decoded with would hide a member the SDK decodes wrong.

using System.Globalization;
using System.Reflection;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;
using GitHub.Copilot;

namespace Conformance.Driver;

internal static class HookInputs
{
    /// <summary>The SessionHooks property for a hook type (preToolUse: OnPreToolUse), when it is a hook of the declared shape.</summary>
    public static PropertyInfo? HookProperty(string hookType)
    {
        if (hookType.Length == 0)
        {
            return null;
        }
        string name = "On" + char.ToUpperInvariant(hookType[0]) + hookType[1..];
        PropertyInfo? p = typeof(SessionHooks).GetProperty(name, BindingFlags.Public | BindingFlags.Instance);
        return p is { CanWrite: true } && IsHook(p.PropertyType) ? p : null;
    }

    /// <summary>Func&lt;TInput, HookInvocation, Task&lt;TOutput&gt;&gt; with class types TInput and TOutput.</summary>
    private static bool IsHook(Type t) =>
        t.IsGenericType && t.GetGenericTypeDefinition() == typeof(Func<,,>)
        && t.GetGenericArguments() is [var input, var invocation, var result]
        && input.IsClass && invocation == typeof(HookInvocation)
        && result.IsGenericType && result.GetGenericTypeDefinition() == typeof(Task<>)
        && result.GetGenericArguments()[0].IsClass;

    /// <summary>A hook property's input and output types.</summary>
    public static (Type Input, Type Output) Signature(PropertyInfo hook)
    {
        Type[] args = hook.PropertyType.GetGenericArguments();
        return (args[0], args[2].GetGenericArguments()[0]);
    }

    /// <summary>The members an application reads from the input type: public instance properties with a public getter.</summary>
    private static IEnumerable<PropertyInfo> Readable(Type t) =>
        t.GetProperties(BindingFlags.Public | BindingFlags.Instance)
            .Where(p => p.GetMethod is { IsPublic: true } && p.GetIndexParameters().Length == 0)
            .Where(p => p.GetCustomAttribute<JsonIgnoreAttribute>() is not { Condition: JsonIgnoreCondition.Always })
            .OrderBy(p => p.MetadataToken);

    /// <summary>The key the SDK reads a member from: its [JsonPropertyName], else the Web defaults' camelCase name.</summary>
    private static string Wire(PropertyInfo p) =>
        p.GetCustomAttribute<JsonPropertyNameAttribute>()?.Name ?? JsonNamingPolicy.CamelCase.ConvertName(p.Name);

    private static bool IsDate(Type t) => t == typeof(DateTimeOffset) || t == typeof(DateTime);

    /// <summary>Surface.ShapeOf's shape, but date for the SDK's date types and any for a JSON value or object.</summary>
    private static string Shape(Type t)
    {
        Type under = Nullable.GetUnderlyingType(t) ?? t;
        if (IsDate(under))
        {
            return "date";
        }
        if (under == typeof(JsonElement) || under == typeof(object) || typeof(JsonNode).IsAssignableFrom(under))
        {
            return "any";
        }
        return Surface.ShapeOf(t).Shape;
    }

    /// <summary>The input type as declared (PROTOCOL.md hookInputs): declaredBy and its members.</summary>
    public static JsonObject Declare(Type input)
    {
        string declaredBy = input.FullName ?? input.Name;
        var nullability = new NullabilityInfoContext();
        var members = new JsonArray();
        foreach (PropertyInfo p in Readable(input))
        {
            bool optional = Nullable.GetUnderlyingType(p.PropertyType) is not null
                || (!p.PropertyType.IsValueType && nullability.Create(p).ReadState == NullabilityState.Nullable);
            members.Add(new JsonObject
            {
                ["owner"] = "hookInput",
                ["name"] = p.Name,
                ["wire"] = Wire(p),
                ["type"] = p.PropertyType.ToString(),
                ["kind"] = "field",
                ["shape"] = Shape(p.PropertyType),
                ["optional"] = optional,
                ["declaredBy"] = declaredBy,
            });
        }
        return new JsonObject { ["declaredBy"] = declaredBy, ["members"] = members };
    }

    /// <summary>
    /// What the application reads from a hook's input, property by property under each member's
    /// wire key: a null (not set) left out, a date as RFC 3339, a JSON value as it is.
    /// </summary>
    public static JsonNode? Read(object? input)
    {
        if (input is null)
        {
            return null;
        }
        var read = new JsonObject();
        foreach (PropertyInfo p in Readable(input.GetType()))
        {
            object? value = p.GetValue(input);
            switch (value)
            {
                case null:
                    continue;
                case DateTimeOffset d:
                    read[Wire(p)] = d.ToString("o", CultureInfo.InvariantCulture);
                    break;
                case DateTime d:
                    read[Wire(p)] = d.ToString("o", CultureInfo.InvariantCulture);
                    break;
                case JsonElement e:
                    if (e.ValueKind != JsonValueKind.Undefined)
                    {
                        read[Wire(p)] = JsonNode.Parse(e.GetRawText());
                    }
                    break;
                default:
                    read[Wire(p)] = Handlers.SdkWay(value);
                    break;
            }
        }
        return read;
    }
}
