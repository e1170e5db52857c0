package conformance.driver;

import java.lang.reflect.Constructor;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Builds SDK values from the harness's JSON the way an application does (PROTOCOL.md "Building SDK
 * values"): a record through its canonical constructor with the components by name, a class
 * through its public no-arg constructor and setters ({@code setX} or fluent {@code x(…)}), an enum
 * through its static factory or its constants, lists, maps and {@code Optional} by their declared
 * type arguments. A wire key is matched to a component or setter by the Java convention (the
 * camelCase property name, compared case-insensitively without separators), never through the SDK's
 * Jackson annotations ({@code @JsonProperty}) or its mapper, so that a wrong wire name in the SDK's
 * serializer reaches the wire instead of being undone by the same mapping.
 *
 * <p>Only a type that has no way to be built by name (an interface or abstract class whose variant
 * reflection cannot choose, a class with neither a public constructor nor a builder) is built with
 * the SDK's deserializer for that sub-value, and the type and the reason are recorded in
 * {@link #TALLY}, reported in hello's notes as {@code driver.builtBy}.
 */
final class ByName {
    /** Type name → why it was built through the SDK's deserializer (filled by the fallback). */
    static final Map<String, String> TALLY = new java.util.concurrent.ConcurrentSkipListMap<>();
    /** Type names built by name (records, classes with setters, enums). */
    static final Set<String> BY_NAME = ConcurrentHashMap.newKeySet();

    private ByName() {
    }

    /**
     * What one build did: {@code placed} the JSON pointers of keys set on a component or setter (or
     * kept in a map) with a non-null value, {@code unknown} those the type has no property for.
     */
    static final class Result {
        final Set<String> placed = new HashSet<>();
        final List<String> unknown = new ArrayList<>();
    }

    static String norm(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[^0-9a-z]", "");
    }

    static String ptr(String at, String key) {
        return at + "/" + key.replace("~", "~0").replace("/", "~1");
    }

    /** v (JSON) as a value of the declared type t; {@code fallback} is the SDK's mapper for the types that cannot be built by name. */
    static Object build(Type t, JsonNode v, Result r, String at, ObjectMapper fallback) throws Exception {
        if (v == null || v.isNull() || v.isMissingNode()) {
            return t instanceof Class<?> c && c == Optional.class ? Optional.empty() : null;
        }
        if (t instanceof WildcardType w) {
            return build(w.getUpperBounds()[0], v, r, at, fallback);
        }
        if (t instanceof TypeVariable<?>) {
            return build(Object.class, v, r, at, fallback);
        }
        if (t instanceof GenericArrayType) {
            return fromDeserializer(t, v, fallback, "it is a generic array");
        }
        if (t instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            Type[] a = p.getActualTypeArguments();
            if (Optional.class == raw) {
                return Optional.ofNullable(build(a[0], v, r, at, fallback));
            }
            if (Collection.class.isAssignableFrom(raw)) {
                return collection(raw, a[0], v, r, at, fallback);
            }
            if (Map.class.isAssignableFrom(raw)) {
                return map(raw, a.length == 2 ? a[1] : Object.class, v, r, at, fallback);
            }
            return build(raw, v, r, at, fallback);
        }
        Class<?> c = (Class<?>) t;
        if (c == Object.class || c == JsonNode.class || JsonNode.class.isAssignableFrom(c)) {
            // Plain JSON, no SDK type: the tree as Java's own maps and lists.
            return c == Object.class ? Out.JSON.treeToValue(v, Object.class) : v;
        }
        Object scalar = scalar(c, v, at);
        if (scalar != NOT_SCALAR) {
            return scalar;
        }
        if (c.isEnum()) {
            return enumValue(c, v, at);
        }
        if (c.isArray()) {
            List<?> items = (List<?>) collection(List.class, c.getComponentType(), v, r, at, fallback);
            Object arr = java.lang.reflect.Array.newInstance(c.getComponentType(), items.size());
            for (int i = 0; i < items.size(); i++) {
                java.lang.reflect.Array.set(arr, i, items.get(i));
            }
            return arr;
        }
        if (Collection.class.isAssignableFrom(c)) {
            return collection(c, Object.class, v, r, at, fallback);
        }
        if (Map.class.isAssignableFrom(c)) {
            return map(c, Object.class, v, r, at, fallback);
        }
        if (c.isRecord()) {
            return record(c, v, r, at, fallback);
        }
        String why = whyNot(c);
        if (why != null) {
            return fromDeserializer(c, v, fallback, why);
        }
        return bean(c, v, r, at, fallback);
    }

    private static final Object NOT_SCALAR = new Object();

    private static Object scalar(Class<?> c, JsonNode v, String at) {
        if (c == String.class) {
            return want(v.isTextual(), at, "a string") ? v.textValue() : null;
        }
        if (c == Boolean.class || c == boolean.class) {
            return want(v.isBoolean(), at, "a boolean") ? v.booleanValue() : null;
        }
        if (c == Integer.class || c == int.class) {
            return want(v.isIntegralNumber() && v.canConvertToInt(), at, "an int") ? v.intValue() : null;
        }
        if (c == Long.class || c == long.class) {
            return want(v.isIntegralNumber() && v.canConvertToLong(), at, "a long") ? v.longValue() : null;
        }
        if (c == Short.class || c == short.class) {
            return want(v.isIntegralNumber(), at, "a short") ? v.shortValue() : null;
        }
        if (c == Double.class || c == double.class) {
            return want(v.isNumber(), at, "a number") ? v.doubleValue() : null;
        }
        if (c == Float.class || c == float.class) {
            return want(v.isNumber(), at, "a number") ? v.floatValue() : null;
        }
        if (c == BigDecimal.class) {
            return want(v.isNumber(), at, "a number") ? v.decimalValue() : null;
        }
        if (c == BigInteger.class) {
            return want(v.isIntegralNumber(), at, "an integer") ? v.bigIntegerValue() : null;
        }
        if (c == Number.class) {
            return want(v.isNumber(), at, "a number") ? v.numberValue() : null;
        }
        if (c == OffsetDateTime.class) {
            return OffsetDateTime.parse(text(v, at));
        }
        if (c == Instant.class) {
            return OffsetDateTime.parse(text(v, at)).toInstant();
        }
        if (c == ZonedDateTime.class) {
            return ZonedDateTime.parse(text(v, at));
        }
        if (c == LocalDate.class) {
            return LocalDate.parse(text(v, at));
        }
        if (c == UUID.class) {
            return UUID.fromString(text(v, at));
        }
        if (c == URI.class) {
            return URI.create(text(v, at));
        }
        return NOT_SCALAR;
    }

    private static String text(JsonNode v, String at) {
        want(v.isTextual(), at, "a string");
        return v.textValue();
    }

    private static boolean want(boolean ok, String at, String what) {
        if (!ok) {
            throw new IllegalArgumentException((at.isEmpty() ? "/" : at) + ": want " + what);
        }
        return true;
    }

    /** The enum constant an application names: the type's static factory from a String, else the constant whose value (getValue / toString) or name is the text. */
    private static Object enumValue(Class<?> c, JsonNode v, String at) throws Exception {
        String s = text(v, at);
        BY_NAME.add(c.getName());
        for (Method m : c.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && m.getReturnType() == c && m.getParameterCount() == 1
                    && m.getParameterTypes()[0] == String.class && !m.getName().equals("valueOf")) {
                try {
                    return m.invoke(null, s);
                } catch (InvocationTargetException e) {
                    throw new IllegalArgumentException((at.isEmpty() ? "/" : at) + ": " + c.getSimpleName() + "."
                            + m.getName() + "(\"" + s + "\") raised " + Failure.message(e.getCause()), e.getCause());
                }
            }
        }
        Method value = null;
        try {
            value = c.getMethod("getValue");
        } catch (NoSuchMethodException e) {
            // no value accessor: the constant's toString or name
        }
        for (Object k : c.getEnumConstants()) {
            Object kv = value != null ? value.invoke(k) : k.toString();
            if (s.equals(String.valueOf(kv)) || s.equals(((Enum<?>) k).name())) {
                return k;
            }
        }
        throw new IllegalArgumentException((at.isEmpty() ? "/" : at) + ": " + s + " is no constant of " + c.getSimpleName());
    }

    private static Object collection(Class<?> raw, Type item, JsonNode v, Result r, String at, ObjectMapper fb)
            throws Exception {
        want(v.isArray(), at, "a list");
        Collection<Object> out = Set.class.isAssignableFrom(raw) ? new LinkedHashSet<>() : new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            out.add(child(item, v.get(i), r, at + "/" + i, fb));
        }
        return out;
    }

    private static Object map(Class<?> raw, Type value, JsonNode v, Result r, String at, ObjectMapper fb)
            throws Exception {
        want(v.isObject(), at, "an object");
        Map<String, Object> out = java.util.SortedMap.class.isAssignableFrom(raw) ? new TreeMap<>() : new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = v.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            out.put(e.getKey(), child(value, e.getValue(), r, ptr(at, e.getKey()), fb));
        }
        return out;
    }

    private static Object child(Type t, JsonNode v, Result r, String at, ObjectMapper fb) throws Exception {
        if (v != null && !v.isNull()) {
            r.placed.add(at);
        }
        return build(t, v, r, at, fb);
    }

    private static Object record(Class<?> c, JsonNode v, Result r, String at, ObjectMapper fb) throws Exception {
        want(v.isObject(), at, c.getSimpleName() + " (an object)");
        RecordComponent[] comps = c.getRecordComponents();
        Map<String, Integer> idx = new HashMap<>();
        for (int i = 0; i < comps.length; i++) {
            idx.put(norm(comps[i].getName()), i);
        }
        Object[] args = new Object[comps.length];
        for (int i = 0; i < comps.length; i++) {
            args[i] = zero(comps[i].getType());
        }
        Iterator<Map.Entry<String, JsonNode>> it = v.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String p = ptr(at, e.getKey());
            Integer i = idx.get(norm(e.getKey()));
            if (i == null) {
                r.unknown.add(p);
                continue;
            }
            Object built = child(comps[i].getGenericType(), e.getValue(), r, p, fb);
            if (built != null || !comps[i].getType().isPrimitive()) {
                args[i] = built;
            }
        }
        Class<?>[] types = new Class<?>[comps.length];
        for (int i = 0; i < comps.length; i++) {
            types[i] = comps[i].getType();
        }
        Constructor<?> canonical = c.getDeclaredConstructor(types);
        canonical.setAccessible(true);
        BY_NAME.add(c.getName());
        try {
            return canonical.newInstance(args);
        } catch (InvocationTargetException e) {
            throw new IllegalArgumentException((at.isEmpty() ? "/" : at) + ": new " + c.getSimpleName() + " raised "
                    + Failure.message(e.getCause()), e.getCause());
        }
    }

    private static Object zero(Class<?> t) {
        if (!t.isPrimitive()) {
            return null;
        }
        if (t == boolean.class) {
            return false;
        }
        if (t == char.class) {
            return '\0';
        }
        return java.lang.reflect.Array.get(java.lang.reflect.Array.newInstance(t, 1), 0);
    }

    /** Why c cannot be built by name, or null when it can (a public no-arg constructor or a static builder()). */
    static String whyNot(Class<?> c) {
        if (c.isInterface() || Modifier.isAbstract(c.getModifiers())) {
            String kind = c.isInterface() ? "interface" : "abstract class";
            return c.isSealed() ? "it is a sealed " + kind + " and the driver does not choose among its permitted variants"
                    : "it is an " + kind + " that is not sealed, so reflection cannot list its variants to choose one";
        }
        if (builderFactory(c) != null) {
            return null;
        }
        try {
            c.getConstructor();
            return null;
        } catch (NoSuchMethodException e) {
            return "it has neither a public no-arg constructor nor a static builder()";
        }
    }

    private static Method builderFactory(Class<?> c) {
        try {
            Method b = c.getMethod("builder");
            if (Modifier.isStatic(b.getModifiers()) && b.getReturnType() != void.class) {
                b.getReturnType().getMethod("build");
                return b;
            }
        } catch (NoSuchMethodException e) {
            // none
        }
        return null;
    }

    /** Normalised property name → the setters for it (setX(T) or a fluent x(T)), read from the class's public methods. */
    static Map<String, List<Method>> setters(Class<?> c) {
        Map<String, List<Method>> out = new HashMap<>();
        for (Method m : c.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) || m.getParameterCount() != 1 || m.getDeclaringClass() == Object.class) {
                continue;
            }
            String n = m.getName();
            boolean prefixed = n.length() > 3 && n.startsWith("set") && Character.isUpperCase(n.charAt(3));
            boolean fluent = !prefixed && (m.getReturnType() == c || m.getReturnType().isAssignableFrom(c))
                    && !n.equals("equals");
            if (prefixed || fluent) {
                out.computeIfAbsent(norm(prefixed ? n.substring(3) : n), k -> new ArrayList<>()).add(m);
            }
        }
        return out;
    }

    private static Object bean(Class<?> c, JsonNode v, Result r, String at, ObjectMapper fb) throws Exception {
        want(v.isObject(), at, c.getSimpleName() + " (an object)");
        Method factory = builderFactory(c);
        Object target = factory != null ? factory.invoke(null) : c.getConstructor().newInstance();
        Map<String, List<Method>> set = setters(target.getClass());
        Iterator<Map.Entry<String, JsonNode>> it = v.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String p = ptr(at, e.getKey());
            List<Method> ms = set.get(norm(e.getKey()));
            if (ms == null) {
                r.unknown.add(p);
                continue;
            }
            Method m = pick(ms, e.getValue());
            Object built = child(m.getGenericParameterTypes()[0], e.getValue(), r, p, fb);
            if (built == null && m.getParameterTypes()[0].isPrimitive()) {
                continue;
            }
            Object next = m.invoke(target, built);
            if (factory != null && next != null && m.getReturnType() != void.class) {
                target = next; // a builder may hand back a new one
            }
        }
        BY_NAME.add(c.getName());
        return factory != null ? target.getClass().getMethod("build").invoke(target) : target;
    }

    /** The overload whose parameter fits the JSON kind (a String setter for text, a List for an array …). */
    private static Method pick(List<Method> ms, JsonNode v) {
        if (ms.size() == 1) {
            return ms.get(0);
        }
        for (Method m : ms) {
            Class<?> p = m.getParameterTypes()[0];
            boolean fits = v.isTextual() ? p == String.class || p.isEnum()
                    : v.isBoolean() ? p == Boolean.class || p == boolean.class
                    : v.isArray() ? Collection.class.isAssignableFrom(p) || p.isArray()
                    : v.isObject() ? !p.isPrimitive() && p != String.class && !Collection.class.isAssignableFrom(p)
                    : v.isNumber() && (Number.class.isAssignableFrom(p) || p.isPrimitive() && p != boolean.class);
            if (fits) {
                return m;
            }
        }
        return ms.get(0);
    }

    private static Object fromDeserializer(Type t, JsonNode v, ObjectMapper fb, String why) {
        TALLY.put(t.getTypeName(), "built through the SDK's deserializer because " + why);
        return fb.convertValue(v, fb.getTypeFactory().constructType(t));
    }

    /** Walks the declared type t as build would, without a value, so that hello reports which types build by name and which do not. */
    static void plan(Type t, Set<Type> seen) {
        if (t == null || !seen.add(t)) {
            return;
        }
        if (t instanceof ParameterizedType p) {
            for (Type a : p.getActualTypeArguments()) {
                plan(a, seen);
            }
            return;
        }
        if (t instanceof WildcardType w) {
            plan(w.getUpperBounds()[0], seen);
            return;
        }
        if (!(t instanceof Class<?> c) || c.isPrimitive() || c.getName().startsWith("java.")
                || JsonNode.class.isAssignableFrom(c)) {
            return;
        }
        if (c.isArray()) {
            plan(c.getComponentType(), seen);
            return;
        }
        if (c.isEnum()) {
            BY_NAME.add(c.getName());
            return;
        }
        if (c.isRecord()) {
            BY_NAME.add(c.getName());
            for (RecordComponent rc : c.getRecordComponents()) {
                plan(rc.getGenericType(), seen);
            }
            return;
        }
        String why = whyNot(c);
        if (why != null) {
            TALLY.put(c.getName(), "built through the SDK's deserializer because " + why);
            return;
        }
        BY_NAME.add(c.getName());
        Method factory = builderFactory(c);
        Class<?> target = factory != null ? factory.getReturnType() : c;
        for (List<Method> ms : setters(target).values()) {
            for (Method m : ms) {
                plan(m.getGenericParameterTypes()[0], seen);
            }
        }
    }

    /**
     * JSON pointers into given that held (what the SDK would send: the value re-serialised its way)
     * does not carry as given, less the keys the builder set on a declared component or setter: a
     * key placed by name that is missing from held is the SDK's serializer losing or renaming it,
     * for the harness to see on the wire, not a limitation of the type.
     */
    static void unrepresentable(JsonNode given, JsonNode held, Result r, String at, List<String> out) {
        if (held == null || held.isMissingNode()) {
            out.add(at);
            return;
        }
        if (given.isObject()) {
            if (!held.isObject()) {
                out.add(at);
                return;
            }
            Iterator<Map.Entry<String, JsonNode>> it = given.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                String p = ptr(at, e.getKey());
                JsonNode h = held.get(e.getKey());
                if (h == null && r.placed.contains(p)) {
                    continue;
                }
                unrepresentable(e.getValue(), h, r, p, out);
            }
        } else if (given.isArray()) {
            if (!held.isArray() || held.size() != given.size()) {
                out.add(at);
                return;
            }
            for (int i = 0; i < given.size(); i++) {
                unrepresentable(given.get(i), held.get(i), r, at + "/" + i, out);
            }
        } else if (given.isNumber() && held.isNumber()) {
            if (given.decimalValue().compareTo(held.decimalValue()) != 0) {
                out.add(at);
            }
        } else if (!given.equals(held)) {
            out.add(at);
        }
    }

    /** build, refusing a key the type has no property for (IllegalArgumentException naming its pointers): a dropped key would look like the SDK dropping it. */
    static Object strict(Type t, JsonNode v, ObjectMapper fallback) throws Exception {
        Result r = new Result();
        Object out = build(t, v, r, "", fallback);
        if (!r.unknown.isEmpty()) {
            throw new IllegalArgumentException(t.getTypeName().replaceAll("[\\w.]*\\.", "") + " has no property for "
                    + String.join(", ", r.unknown));
        }
        return out;
    }

    /** hello's {@code driver.builtBy} note. */
    static String note() {
        StringBuilder b = new StringBuilder();
        b.append(BY_NAME.size()).append(" SDK types built by name (record constructors, setters, builders, enums); ");
        if (TALLY.isEmpty()) {
            b.append("none through the SDK's deserializer");
        } else {
            b.append(TALLY.size()).append(" through the SDK's deserializer: ");
            b.append(String.join("; ", TALLY.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList()));
        }
        return b.toString();
    }
}
