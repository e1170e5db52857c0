// The application's surface (../PROTOCOL.md "Surface"), read by reflection from the SDK's config
// types: every public settable instance property of SessionConfig, ResumeSessionConfig and
// CopilotClientOptions, with its declared type. No property is named here; `fields` values are
// built by name (ByName.cs), never through the SDK's deserializer. Written against the
// same API as Program.cs; like the rest of this driver it is built only where a .NET 8 SDK is.

using System.Linq.Expressions;
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
    internal static (string Shape, bool Optional) ShapeOf(Type t)
    {
        Type? under = Nullable.GetUnderlyingType(t);
        bool optional = under is not null || !t.IsValueType;
        t = under ?? t;
        if (typeof(Delegate).IsAssignableFrom(t) || IsCallbacks(t)) return ("handler", true);
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

    /// <summary>
    /// A class of callbacks only (SessionHooks): every settable property a delegate, built through
    /// a public parameterless constructor. PROTOCOL.md "Surface": such an object is one handler entry.
    /// </summary>
    private static bool IsCallbacks(Type t) =>
        t.IsClass && !t.IsAbstract && t.GetConstructor(Type.EmptyTypes) is not null
        && Settable(t).ToList() is { Count: > 0 } members
        && members.All(p => typeof(Delegate).IsAssignableFrom(p.PropertyType));

    /// <summary>
    /// surfaceHandlers (PROTOCOL.md "Surface"): for each named handler property of config, a
    /// callback of the property's own type that reports its call (surface.handler.called) and
    /// answers the language's empty value; a property the driver set already (its permission
    /// handler, its event forwarding) keeps the driver's callback and is returned in kept.
    /// </summary>
    public static JsonArray? ApplyHandlers(object config, JsonNode? names, string session, string sdk)
    {
        if (names is null)
        {
            return null;
        }
        if (names is not JsonArray list)
        {
            throw new DriverException("'surfaceHandlers' must be an array");
        }
        var kept = new JsonArray();
        foreach (JsonNode? item in list)
        {
            string name = (string?)item ?? throw new DriverException("a surfaceHandlers entry must be a string");
            PropertyInfo p = Settable(config.GetType()).FirstOrDefault(x => x.Name == name)
                ?? throw new UnsupportedException($"{sdk}: {config.GetType().Name} has no handler {name}");
            if (p.GetValue(config) is not null)
            {
                kept.Add(name);
                continue;
            }
            Action called = () => Program.Emit("surface.handler.called", new JsonObject { ["session"] = session, ["handler"] = name });
            object handler = DoNothing(p.PropertyType, called)
                ?? throw new UnsupportedException($"{sdk}: {config.GetType().Name}.{name} ({p.PropertyType}) is not a delegate or a class of delegates");
            p.SetValue(config, handler);
        }
        return kept;
    }

    /// <summary>
    /// A value of type t whose callbacks do nothing but call called and answer the empty value: a
    /// delegate (its own signature, compiled from an expression tree), or a class of delegates
    /// (SessionHooks) with each property set so. Null when t is neither.
    /// </summary>
    internal static object? DoNothing(Type t, Action called)
    {
        if (typeof(Delegate).IsAssignableFrom(t) && t.GetMethod("Invoke") is { } invoke)
        {
            ParameterExpression[] parameters = invoke.GetParameters().Select(x => Expression.Parameter(x.ParameterType, x.Name)).ToArray();
            Expression body = Expression.Block(invoke.ReturnType, Expression.Invoke(Expression.Constant(called)), Empty(invoke.ReturnType));
            return Expression.Lambda(t, body, parameters).Compile();
        }
        if (IsCallbacks(t))
        {
            object callbacks = Activator.CreateInstance(t)!;
            foreach (PropertyInfo p in Settable(t))
            {
                p.SetValue(callbacks, DoNothing(p.PropertyType, called));
            }
            return callbacks;
        }
        return null;
    }

    /// <summary>The language's empty answer of a callback's return type: nothing, a completed task (of the default value), default.</summary>
    private static Expression Empty(Type r)
    {
        if (r == typeof(void))
        {
            return Expression.Empty();
        }
        if (r == typeof(Task))
        {
            return Expression.Constant(Task.CompletedTask, typeof(Task));
        }
        if (r.IsGenericType && r.GetGenericTypeDefinition() == typeof(Task<>))
        {
            Type value = r.GetGenericArguments()[0];
            return Expression.Call(typeof(Task), nameof(Task.FromResult), new[] { value }, Expression.Default(value));
        }
        return Expression.Default(r); // a ValueTask's default is a completed one
    }
}

