// Builds the SDK's values from the harness's JSON the way a .NET application writes them
// (drivers/PROTOCOL.md "Building SDK values"): an object initializer, a property setter
// (init-only ones included), the public constructor whose parameters the keys name, an enum
// member, a string value type through its string constructor (`new ToolBinaryResultType("image")`),
// lists and dictionaries element by element. It never hands the JSON to System.Text.Json with
// the SDK's attributes ([JsonPropertyName], its converters): a wrong wire name is symmetric, so a
// value decoded through the SDK's own mapping encodes back looking right while the wire is wrong.
//
// A key finds its property by the C# convention: camelCase `toolName` is PascalCase `ToolName`,
// compared without case and separators, never through [JsonPropertyName]. A key `xMs` also finds
// a TimeSpan property `X` (.NET carries the unit in the type, not the name). What the type cannot
// carry as given (a key no property or constructor parameter is named for, a value of another
// JSON type, a number that does not fit) is collected as JSON pointers: the driver's
// `unrepresentable`, or `unsupported` where the command has no such field.
//
// Only a type the SDK declares as a [JsonPolymorphic] union base (the abstract McpServerConfig,
// the generated AuthInfo, …) is decoded by System.Text.Json, that value alone: reflection cannot
// choose its variant, its discriminator does. Such types are tallied (Plan, Note: hello's `driver.builtBy`), read from
// the SDK's declared types, never listed here.
//
// Hand-written because no library builds .NET objects by C# naming convention rather than through
// a serializer's contract. Not compiled here (no .NET SDK on this machine).

using System.Collections;
using System.Collections.Concurrent;
using System.Globalization;
using System.Reflection;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;
using GitHub.Copilot;

namespace Conformance.Driver;

internal sealed class ByName
{
    /// <summary>For the [JsonPolymorphic] unions only: System.Text.Json with the SDK's attributes.</summary>
    private static readonly JsonSerializerOptions s_union = new(JsonSerializerDefaults.Web);

    private static readonly ConcurrentDictionary<string, byte> s_byName = new(StringComparer.Ordinal);
    private static readonly ConcurrentDictionary<string, string> s_decoded = new(StringComparer.Ordinal);
    private static readonly ConcurrentDictionary<Type, Dictionary<string, PropertyInfo>> s_properties = new();

    private static readonly Type[] s_lists =
    [
        typeof(List<>), typeof(IList<>), typeof(ICollection<>), typeof(IEnumerable<>),
        typeof(IReadOnlyList<>), typeof(IReadOnlyCollection<>),
    ];

    private static readonly Type[] s_sets = [typeof(HashSet<>), typeof(ISet<>), typeof(IReadOnlySet<>)];

    private static readonly Type[] s_maps = [typeof(Dictionary<,>), typeof(IDictionary<,>), typeof(IReadOnlyDictionary<,>)];

    private const string UnionWhy = "a [JsonPolymorphic] union: System.Text.Json chooses its variant by the discriminator";

    private readonly List<string> _lost = [];

    private ByName()
    {
    }

    /// <summary>A value of type built from value; lost gets the JSON pointers (under at) it cannot carry as given.</summary>
    public static object? Build(Type type, JsonNode? value, List<string> lost, string at = "")
    {
        var builder = new ByName();
        object? built = builder.Value(type, value, at);
        lost.AddRange(builder._lost);
        lost.Sort(StringComparer.Ordinal);
        return built;
    }

    /// <summary>Build, where a key the type cannot carry makes the command unsupported (options, fields, tool results).</summary>
    public static object? Strict(Type type, JsonNode? value, string what)
    {
        var lost = new List<string>();
        object? built = Build(type, value, lost);
        if (lost.Count > 0)
        {
            throw new UnsupportedException(
                $"{what}: {(Nullable.GetUnderlyingType(type) ?? type).Name} cannot carry " +
                $"{string.Join(", ", lost.Select(p => p.Length == 0 ? "/" : p))} as given");
        }
        return built;
    }

    /// <summary>Counts, from the SDK's declared types reachable from root, which are built by name and which are decoded.</summary>
    public static void Plan(Type root) => Plan(root, []);

    /// <summary>hello's driver.builtBy note: what Plan and the builds so far found.</summary>
    public static string Note()
    {
        string head = $"{s_byName.Count} SDK types built by name (object initializers, property setters, constructors, enum members)";
        if (s_decoded.IsEmpty)
        {
            return head + "; none through the SDK's deserializer";
        }
        IEnumerable<string> decoded = s_decoded.OrderBy(e => e.Key, StringComparer.Ordinal).Select(e => $"{e.Key} ({e.Value})");
        return $"{head}; {s_decoded.Count} through the SDK's deserializer (System.Text.Json): {string.Join("; ", decoded)}";
    }

    // ------------------------------------------------------------------ building

    private object? Value(Type t, JsonNode? v, string at)
    {
        if (t == typeof(JsonElement))
        {
            return Element(v); // plain JSON, no SDK type: taken as is (a null too)
        }
        Type? under = Nullable.GetUnderlyingType(t);
        if (v is null)
        {
            if (t.IsValueType && under is null)
            {
                return Lose(t, at); // a null the type has no value for
            }
            return null;
        }
        if (under is not null)
        {
            return Value(under, v, at); // a boxed T sets a T? property
        }
        if (t == typeof(object))
        {
            return Element(v); // plain JSON, no SDK type: taken as is
        }
        if (typeof(JsonNode).IsAssignableFrom(t))
        {
            JsonNode copy = v.DeepClone();
            return t.IsInstanceOfType(copy) ? copy : Lose(t, at);
        }
        if (Scalar(t, v, at, out object? scalar))
        {
            return scalar;
        }
        if (t.IsEnum)
        {
            return EnumMember(t, v, at);
        }
        if (ElementType(t, out Type? item, out bool set))
        {
            return BuildList(t, item, set, v, at);
        }
        if (t.IsGenericType && Array.IndexOf(s_maps, t.GetGenericTypeDefinition()) >= 0)
        {
            Type[] kv = t.GetGenericArguments();
            return BuildMap(kv[0], kv[1], v, at);
        }
        if (typeof(Delegate).IsAssignableFrom(t))
        {
            return Lose(t, at); // a handler is code, not JSON
        }
        if (Union(t) is { } union)
        {
            return Decode(t, union, v, at);
        }
        if (t.IsAbstract || t.IsInterface)
        {
            return Lose(t, at); // no declared variants: nothing an application could build from the JSON
        }
        return BuildObject(t, v, at);
    }

    /// <summary>Strings, booleans, numbers and the BCL value types an application writes from text.</summary>
    private bool Scalar(Type t, JsonNode v, string at, out object? result)
    {
        JsonValueKind kind = v.GetValueKind();
        string? text = kind == JsonValueKind.String ? v.GetValue<string>() : null;
        result = null;
        if (t == typeof(string))
        {
            result = text ?? Lose(t, at);
        }
        else if (t == typeof(bool))
        {
            result = (kind is JsonValueKind.True or JsonValueKind.False) ? kind == JsonValueKind.True : Lose(t, at);
        }
        else if (IsInteger(t))
        {
            result = kind == JsonValueKind.Number &&
                     decimal.TryParse(v.ToJsonString(), NumberStyles.Float, CultureInfo.InvariantCulture, out decimal d) &&
                     d == decimal.Truncate(d) && Fits(d, t, out object? n)
                ? n
                : Lose(t, at);
        }
        else if (t == typeof(double) || t == typeof(float))
        {
            result = kind == JsonValueKind.Number &&
                     double.TryParse(v.ToJsonString(), NumberStyles.Float, CultureInfo.InvariantCulture, out double x)
                ? (t == typeof(float) ? (object)(float)x : x)
                : Lose(t, at);
        }
        else if (t == typeof(decimal))
        {
            result = kind == JsonValueKind.Number &&
                     decimal.TryParse(v.ToJsonString(), NumberStyles.Float, CultureInfo.InvariantCulture, out decimal m)
                ? m
                : Lose(t, at);
        }
        else if (t == typeof(Guid))
        {
            result = text is not null && Guid.TryParse(text, out Guid g) ? g : Lose(t, at);
        }
        else if (t == typeof(DateTimeOffset))
        {
            result = text is not null && DateTimeOffset.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.None, out DateTimeOffset o)
                ? o
                : Lose(t, at);
        }
        else if (t == typeof(DateTime))
        {
            result = text is not null && DateTime.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind, out DateTime dt)
                ? dt
                : Lose(t, at);
        }
        else if (t == typeof(TimeSpan))
        {
            // Every duration on this protocol's wire is a number of milliseconds (timeout, waitMs, …).
            result = kind == JsonValueKind.Number &&
                     double.TryParse(v.ToJsonString(), NumberStyles.Float, CultureInfo.InvariantCulture, out double ms)
                ? TimeSpan.FromMilliseconds(ms)
                : Lose(t, at);
        }
        else if (t == typeof(Uri))
        {
            result = text is not null && Uri.TryCreate(text, UriKind.RelativeOrAbsolute, out Uri? uri) ? uri : Lose(t, at);
        }
        else if (text is not null && t.IsValueType && t.GetConstructor([typeof(string)]) is { } fromString)
        {
            // A string value type of the SDK (ToolBinaryResultType, SystemMessageSection): new T("value").
            Tally(t);
            result = Invoke(() => fromString.Invoke([text]), t, at);
        }
        else
        {
            return false;
        }
        return true;
    }

    private static bool IsInteger(Type t) =>
        t == typeof(int) || t == typeof(long) || t == typeof(short) || t == typeof(sbyte) ||
        t == typeof(uint) || t == typeof(ulong) || t == typeof(ushort) || t == typeof(byte);

    private static bool Fits(decimal d, Type t, out object? n)
    {
        try
        {
            n = Convert.ChangeType(d, t, CultureInfo.InvariantCulture);
            return true;
        }
        catch (OverflowException)
        {
            n = null;
            return false;
        }
    }

    /// <summary>The member whose C# name the text names by convention ("in-memory" is InMemory), never [JsonStringEnumMemberName].</summary>
    private object? EnumMember(Type t, JsonNode v, string at)
    {
        if (v.GetValueKind() == JsonValueKind.String)
        {
            string want = Fold(v.GetValue<string>());
            foreach (string name in Enum.GetNames(t))
            {
                if (Fold(name) == want)
                {
                    Tally(t);
                    return Enum.Parse(t, name);
                }
            }
        }
        return Lose(t, at);
    }

    private static bool ElementType(Type t, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out Type? item, out bool set)
    {
        set = false;
        item = null;
        if (t.IsArray)
        {
            item = t.GetElementType();
            return item is not null && t.GetArrayRank() == 1;
        }
        if (!t.IsGenericType)
        {
            return false;
        }
        Type definition = t.GetGenericTypeDefinition();
        set = Array.IndexOf(s_sets, definition) >= 0;
        if (set || Array.IndexOf(s_lists, definition) >= 0)
        {
            item = t.GetGenericArguments()[0];
            return true;
        }
        return false;
    }

    private object? BuildList(Type t, Type item, bool set, JsonNode v, string at)
    {
        if (v is not JsonArray a)
        {
            return Lose(t, at);
        }
        var items = new List<object?>(a.Count);
        for (int i = 0; i < a.Count; i++)
        {
            items.Add(Value(item, a[i], at + "/" + i.ToString(CultureInfo.InvariantCulture)));
        }
        if (t.IsArray)
        {
            Array array = Array.CreateInstance(item, items.Count);
            for (int i = 0; i < items.Count; i++)
            {
                array.SetValue(items[i], i);
            }
            return array;
        }
        if (set)
        {
            object hashSet = Activator.CreateInstance(typeof(HashSet<>).MakeGenericType(item))!;
            MethodInfo add = hashSet.GetType().GetMethod("Add", [item])!;
            foreach (object? x in items)
            {
                add.Invoke(hashSet, [x]);
            }
            return hashSet;
        }
        var list = (IList)Activator.CreateInstance(typeof(List<>).MakeGenericType(item))!;
        foreach (object? x in items)
        {
            list.Add(x);
        }
        return list;
    }

    /// <summary>A Dictionary&lt;K, V&gt;; a key that is not a string is built from its text (an enum, SystemMessageSection).</summary>
    private object? BuildMap(Type key, Type value, JsonNode v, string at)
    {
        Type map = typeof(Dictionary<,>).MakeGenericType(key, value);
        if (v is not JsonObject o)
        {
            return Lose(map, at);
        }
        var dictionary = (IDictionary)Activator.CreateInstance(map)!;
        foreach ((string k, JsonNode? x) in o)
        {
            string ptr = at + "/" + Escape(k);
            object? builtKey = key == typeof(string) ? k : Value(key, JsonValue.Create(k), ptr);
            if (builtKey is null)
            {
                continue; // lost where it was built
            }
            dictionary[builtKey] = Value(value, x, ptr);
        }
        return dictionary;
    }

    /// <summary>
    /// A class or struct: its public parameterless constructor, or else the public constructor whose
    /// parameters the keys name (a positional record), then each remaining key through the property
    /// of that name.
    /// </summary>
    private object? BuildObject(Type t, JsonNode v, string at)
    {
        if (v is not JsonObject o)
        {
            return Lose(t, at);
        }
        var byParameter = new HashSet<string>(StringComparer.Ordinal);
        object? target;
        if (t.IsValueType || t.GetConstructor(Type.EmptyTypes) is not null)
        {
            target = Invoke(() => Activator.CreateInstance(t), t, at);
        }
        else if (Constructor(t, o) is { } constructor)
        {
            ParameterInfo[] parameters = constructor.GetParameters();
            var arguments = new object?[parameters.Length];
            for (int i = 0; i < parameters.Length; i++)
            {
                ParameterInfo p = parameters[i];
                if (Key(o, p.Name) is { } key)
                {
                    byParameter.Add(key);
                    arguments[i] = Value(p.ParameterType, o[key], at + "/" + Escape(key));
                }
                else
                {
                    arguments[i] = (p.DefaultValue is DBNull or Missing) ? null : p.DefaultValue;
                }
            }
            target = Invoke(() => constructor.Invoke(arguments), t, at);
        }
        else
        {
            return Lose(t, at); // no public constructor the keys can call
        }
        if (target is null)
        {
            return null;
        }
        Dictionary<string, PropertyInfo> properties = Settable(t);
        foreach ((string key, JsonNode? x) in o)
        {
            if (byParameter.Contains(key))
            {
                continue;
            }
            string ptr = at + "/" + Escape(key);
            if (Property(properties, key) is not { } p)
            {
                Lose(t, ptr); // no property of that name
                continue;
            }
            int before = _lost.Count;
            object? built = Value(p.PropertyType, x, ptr);
            if (_lost.IndexOf(ptr, before) < 0) // the value itself was built (a part of it may be lost)
            {
                Invoke(() => { p.SetValue(target, built); return null; }, t, ptr);
            }
        }
        // A callback the type requires (a `required` delegate property: CommandDefinition.Handler)
        // that the JSON did not set gets one of its own type that does nothing (surface.callbacks).
        foreach (PropertyInfo p in properties.Values)
        {
            if (typeof(Delegate).IsAssignableFrom(p.PropertyType)
                && p.CustomAttributes.Any(a => a.AttributeType.Name == "RequiredMemberAttribute")
                && p.GetValue(target) is null
                && Surface.DoNothing(p.PropertyType, static () => { }) is { } callback)
            {
                Invoke(() => { p.SetValue(target, callback); return null; }, t, at);
            }
        }
        Tally(t);
        return target;
    }

    /// <summary>The public constructor with the most parameters, each named by a key or optional.</summary>
    private static ConstructorInfo? Constructor(Type t, JsonObject o) =>
        t.GetConstructors(BindingFlags.Public | BindingFlags.Instance)
            .OrderByDescending(c => c.GetParameters().Length)
            .FirstOrDefault(c => c.GetParameters().All(p => p.HasDefaultValue || Key(o, p.Name) is not null));

    /// <summary>The key of o that names a parameter or property by convention.</summary>
    private static string? Key(JsonObject o, string? name)
    {
        if (name is null)
        {
            return null;
        }
        string want = Fold(name);
        foreach ((string key, _) in o)
        {
            if (Fold(key) == want)
            {
                return key;
            }
        }
        return null;
    }

    /// <summary>The property a key names: ToolName for toolName, or a TimeSpan Wait for waitMs.</summary>
    private static PropertyInfo? Property(Dictionary<string, PropertyInfo> properties, string key)
    {
        string folded = Fold(key);
        if (properties.TryGetValue(folded, out PropertyInfo? p))
        {
            return p;
        }
        return folded.EndsWith("ms", StringComparison.Ordinal) &&
               properties.TryGetValue(folded[..^2], out PropertyInfo? span) &&
               (Nullable.GetUnderlyingType(span.PropertyType) ?? span.PropertyType) == typeof(TimeSpan)
            ? span
            : null;
    }

    /// <summary>The public instance properties with a public setter (init-only included), by folded name; the most derived wins.</summary>
    private static Dictionary<string, PropertyInfo> Settable(Type t) => s_properties.GetOrAdd(t, static type =>
    {
        var byName = new Dictionary<string, PropertyInfo>(StringComparer.Ordinal);
        foreach (PropertyInfo p in type.GetProperties(BindingFlags.Public | BindingFlags.Instance))
        {
            if (p.SetMethod is not { IsPublic: true } || p.GetIndexParameters().Length > 0)
            {
                continue;
            }
            string key = Fold(p.Name);
            if (!byName.TryGetValue(key, out PropertyInfo? seen) || seen.DeclaringType!.IsAssignableFrom(p.DeclaringType))
            {
                byName[key] = p;
            }
        }
        return byName;
    });

    /// <summary>
    /// The [JsonPolymorphic] declaration of a union base (abstract like McpServerConfig, or a
    /// concrete generated base like AuthInfo), not inherited by its variants.
    /// </summary>
    private static JsonPolymorphicAttribute? Union(Type t) => t.GetCustomAttribute<JsonPolymorphicAttribute>(inherit: false);

    /// <summary>
    /// A [JsonPolymorphic] union of the SDK, decoded by System.Text.Json, this value alone and
    /// tallied. What its serializer then writes back is compared with what was given.
    /// </summary>
    private object? Decode(Type t, JsonPolymorphicAttribute union, JsonNode v, string at)
    {
        // .NET 8 reads the discriminator only as the object's first property.
        JsonNode given = DiscriminatorFirst(v, union.TypeDiscriminatorPropertyName ?? "$type");
        object? decoded;
        JsonNode? held;
        try
        {
            decoded = given.Deserialize(t, s_union);
            held = JsonSerializer.SerializeToNode(decoded, t, s_union);
        }
        catch (Exception ex) when (ex is JsonException or NotSupportedException or InvalidOperationException)
        {
            return Lose(t, at); // the SDK's own contract cannot read or write it as given
        }
        s_decoded.TryAdd(Name(t), UnionWhy);
        Diff(v, held, at, _lost);
        return decoded;
    }

    private static JsonNode DiscriminatorFirst(JsonNode v, string discriminator)
    {
        if (v is not JsonObject o || !o.ContainsKey(discriminator))
        {
            return v.DeepClone();
        }
        var first = new JsonObject { [discriminator] = o[discriminator]?.DeepClone() };
        foreach ((string key, JsonNode? x) in o)
        {
            if (key != discriminator)
            {
                first[key] = x?.DeepClone();
            }
        }
        return first;
    }

    /// <summary>Runs a constructor or setter of the SDK; one that throws means the value cannot be carried as given.</summary>
    private object? Invoke(Func<object?> call, Type t, string at)
    {
        try
        {
            return call();
        }
        catch (Exception ex) when (ex is TargetInvocationException or ArgumentException or MemberAccessException)
        {
            return Lose(t, at);
        }
    }

    private object? Lose(Type t, string at)
    {
        _lost.Add(at);
        return (t.IsValueType && Nullable.GetUnderlyingType(t) is null) ? Activator.CreateInstance(t) : null;
    }

    private static JsonElement Element(JsonNode? v)
    {
        using JsonDocument document = JsonDocument.Parse(v?.ToJsonString() ?? "null");
        return document.RootElement.Clone();
    }

    /// <summary>A name as C# compares it by convention: letters and digits, case ignored.</summary>
    private static string Fold(string name) => string.Concat(name.Where(char.IsLetterOrDigit)).ToLowerInvariant();

    private static string Name(Type t) => t.FullName ?? t.Name;

    /// <summary>Counts a type built by name, when it is the SDK's (the driver's own Ticket is not).</summary>
    private static void Tally(Type t)
    {
        if (t.Assembly == typeof(CopilotClient).Assembly)
        {
            s_byName.TryAdd(Name(t), 0);
        }
    }

    internal static string Escape(string key) => key.Replace("~", "~0").Replace("/", "~1");

    // ------------------------------------------------------------------ hello's tally

    private static void Plan(Type t, HashSet<Type> seen)
    {
        t = Nullable.GetUnderlyingType(t) ?? t;
        if (!seen.Add(t))
        {
            return;
        }
        if (t.IsArray)
        {
            Plan(t.GetElementType()!, seen);
            return;
        }
        if (t.IsGenericType)
        {
            foreach (Type argument in t.GetGenericArguments())
            {
                Plan(argument, seen);
            }
        }
        if (t.Assembly != typeof(CopilotClient).Assembly || typeof(Delegate).IsAssignableFrom(t))
        {
            return;
        }
        if (Union(t) is not null)
        {
            s_decoded.TryAdd(Name(t), UnionWhy);
            return;
        }
        if (t.IsAbstract || t.IsInterface)
        {
            return;
        }
        s_byName.TryAdd(Name(t), 0);
        if (t.IsEnum)
        {
            return;
        }
        foreach (PropertyInfo p in Settable(t).Values)
        {
            Plan(p.PropertyType, seen);
        }
        if (!t.IsValueType && t.GetConstructor(Type.EmptyTypes) is null)
        {
            foreach (ConstructorInfo c in t.GetConstructors(BindingFlags.Public | BindingFlags.Instance))
            {
                foreach (ParameterInfo p in c.GetParameters())
                {
                    Plan(p.ParameterType, seen);
                }
            }
        }
    }

    // ------------------------------------------------------------------ what a decoded union carries back

    /// <summary>JSON pointers into given whose value held (the SDK's serialization of what it decoded) does not carry as given.</summary>
    internal static void Diff(JsonNode? given, JsonNode? held, string ptr, List<string> lost)
    {
        switch (given)
        {
            case JsonObject g:
                if (held is not JsonObject h)
                {
                    lost.Add(ptr);
                    return;
                }
                foreach ((string key, JsonNode? value) in g)
                {
                    if (h.TryGetPropertyValue(key, out JsonNode? hv))
                    {
                        Diff(value, hv, ptr + "/" + Escape(key), lost);
                    }
                    else
                    {
                        lost.Add(ptr + "/" + Escape(key));
                    }
                }
                return;
            case JsonArray ga:
                if (held is not JsonArray ha || ha.Count != ga.Count)
                {
                    lost.Add(ptr);
                    return;
                }
                for (int i = 0; i < ga.Count; i++)
                {
                    Diff(ga[i], ha[i], ptr + "/" + i.ToString(CultureInfo.InvariantCulture), lost);
                }
                return;
            default:
                if (!JsonNode.DeepEquals(given, held) && !SameNumber(given, held))
                {
                    lost.Add(ptr);
                }
                return;
        }
    }

    /// <summary>Numbers compare by value (1 and 1.0), read from their JSON text.</summary>
    private static bool SameNumber(JsonNode? a, JsonNode? b) =>
        a is JsonValue va && b is JsonValue vb &&
        va.GetValueKind() == JsonValueKind.Number && vb.GetValueKind() == JsonValueKind.Number &&
        decimal.TryParse(va.ToJsonString(), NumberStyles.Float, CultureInfo.InvariantCulture, out decimal x) &&
        decimal.TryParse(vb.ToJsonString(), NumberStyles.Float, CultureInfo.InvariantCulture, out decimal y) &&
        x == y;
}
