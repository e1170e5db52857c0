package conformance.driver;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The application's surface (drivers/PROTOCOL.md "Surface"), read by reflection from the SDK's
 * config classes: every public one-argument setter {@code setXxx} is the field {@code xxx} with
 * the setter's declared parameter type. No field is named here.
 */
final class Surface {
    // Strict, like SessionOptions: a key the SDK's type lacks would be dropped silently and look
    // like the SDK dropping it; it is "cannot hold" (unsupported) instead.
    private static final ObjectMapper BIND = Out.JSON.copy()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private Surface() {
    }

    /** The setters of a config class, in name order (reflection gives no declaration order). */
    static List<Method> setters(Class<?> type) {
        Map<String, Method> out = new LinkedHashMap<>();
        Arrays.stream(type.getMethods())
                .filter(m -> m.getName().startsWith("set") && m.getName().length() > 3 && m.getParameterCount() == 1
                        && !Modifier.isStatic(m.getModifiers()) && !m.isBridge() && !m.isSynthetic())
                .sorted(Comparator.comparing(Method::getName))
                .forEach(m -> out.putIfAbsent(m.getName(), m));
        return new ArrayList<>(out.values());
    }

    static String fieldName(Method setter) {
        String n = setter.getName().substring(3);
        return Character.toLowerCase(n.charAt(0)) + n.substring(1);
    }

    /** The neutral shape of a Java type, for the harness's value generator. */
    static String shape(Type t) {
        Class<?> raw = t instanceof ParameterizedType p ? (Class<?>) p.getRawType() : t instanceof Class<?> c ? c : Object.class;
        if (raw == String.class) {
            return "string";
        }
        if (raw == boolean.class || raw == Boolean.class) {
            return "boolean";
        }
        if (raw == int.class || raw == Integer.class || raw == long.class || raw == Long.class) {
            return "integer";
        }
        if (raw == double.class || raw == Double.class || raw == float.class || raw == Float.class) {
            return "number";
        }
        if (raw.isEnum()) {
            return "enum";
        }
        if (raw.isArray()) {
            return raw.getComponentType() == String.class ? "string[]" : "array";
        }
        if (List.class.isAssignableFrom(raw)) {
            if (t instanceof ParameterizedType p && p.getActualTypeArguments()[0] == String.class) {
                return "string[]";
            }
            return "array";
        }
        if (Map.class.isAssignableFrom(raw) || raw == Object.class) {
            return "map"; // Object: any JSON, which Jackson binds an object to as a Map (ToolDefinition's parameters)
        }
        if (raw.isInterface() && raw.getMethods().length > 0 && Arrays.stream(raw.getMethods()).filter(m -> Modifier.isAbstract(m.getModifiers())).count() == 1) {
            return "handler"; // a functional interface: a callback the application registers
        }
        return "object";
    }

    /**
     * The members of a config or definition class: each public one-argument setter, or for a
     * record (ToolDefinition) each component, as (name, declared type).
     */
    static Map<String, Type> members(Class<?> type) {
        Map<String, Type> out = new LinkedHashMap<>();
        if (type.isRecord()) {
            for (RecordComponent c : type.getRecordComponents()) {
                out.put(c.getName(), c.getGenericType());
            }
            return out;
        }
        // A class with setters; getMethods() may list a covariant bridge of an inherited setter
        // (McpStdioServerConfig's setTools(List)), which setters() leaves out.
        for (Method m : setters(type)) {
            out.putIfAbsent(fieldName(m), m.getGenericParameterTypes()[0]);
        }
        return out;
    }

    /**
     * The components of a record that every public static factory of it takes (ToolDefinition's
     * create, createOverride, createSkipPermission all start with name and description): the
     * leading components whose declared types each factory's leading parameters have exactly.
     * A record's canonical constructor accepts null anywhere, so this is what says which
     * components the SDK's own API asks for.
     */
    static List<String> requiredByFactories(Class<?> type) {
        List<String> out = new ArrayList<>();
        if (!type.isRecord()) {
            return out;
        }
        RecordComponent[] comps = type.getRecordComponents();
        List<Method> factories = Arrays.stream(type.getMethods())
                .filter(m -> Modifier.isStatic(m.getModifiers()) && m.getReturnType() == type)
                .toList();
        if (factories.isEmpty()) {
            return out;
        }
        for (int i = 0; i < comps.length; i++) {
            int at = i;
            if (!factories.stream().allMatch(m -> m.getParameterCount() > at && m.getParameterTypes()[at] == comps[at].getType())) {
                break;
            }
            out.add(comps[i].getName());
        }
        // A callback component (ToolDefinition's handler) when every factory takes a callback,
        // of that type or one the factory wraps into it (1.x's from(name, description, Function)):
        // the SDK's API makes no definition without one.
        boolean allTakeCallback = factories.stream().allMatch(m -> Arrays.stream(m.getGenericParameterTypes())
                .anyMatch(t -> shape(t).equals("handler")));
        for (RecordComponent c : comps) {
            if (allTakeCallback && shape(c.getGenericType()).equals("handler") && !out.contains(c.getName())) {
                out.add(c.getName());
            }
        }
        return out;
    }

    /** An enum's values as the SDK writes them on the wire (Jackson, with its annotations). */
    static List<String> enumValues(Type t) {
        List<String> out = new ArrayList<>();
        if (t instanceof Class<?> c && c.isEnum()) {
            for (Object v : c.getEnumConstants()) {
                out.add(Out.JSON.valueToTree(v).asText());
            }
        }
        return out;
    }

    /** The entries of every owner, each declared by one or more classes (first declaration wins). */
    static ArrayNode entries(Map<String, List<Class<?>>> owners) {
        ArrayNode out = Out.JSON.createArrayNode();
        owners.forEach((owner, types) -> {
            Map<String, Boolean> seen = new LinkedHashMap<>();
            for (Class<?> type : types) {
                members(type).forEach((name, t) -> {
                    if (seen.putIfAbsent(name, true) != null) {
                        return;
                    }
                    ObjectNode e = entry(out.addObject(), owner, name, t, 0);
                    if (requiredByFactories(type).contains(name)) {
                        e.put("optional", false);
                    }
                    e.put("declaredBy", type.getName() + (type.isRecord() ? "#" + name : ".set"
                            + Character.toUpperCase(name.charAt(0)) + name.substring(1)));
                });
            }
        });
        return out;
    }

    /**
     * One member as an entry; for an object of the SDK's own (or a list or map of them), its
     * members as Jackson binds them (their JSON names, which is how {@link #convert} reads a
     * value that is not a definition), two levels down. An object whose members are all
     * callbacks (SessionHooks) is a handler.
     */
    static ObjectNode entry(ObjectNode e, String owner, String name, Type t, int depth) {
        String shape = shape(t);
        Class<?> held = heldClass(t);
        if (shape.equals("object") && held != null && allCallbacks(held)) {
            shape = "handler";
        }
        e.put("owner", owner);
        e.put("name", name);
        e.put("type", t.getTypeName());
        e.put("kind", shape.equals("handler") ? "handler" : "field");
        e.put("shape", shape);
        if (shape.equals("enum")) {
            enumValues(t).forEach(e.withArray("values")::add);
        }
        e.put("optional", !(t instanceof Class<?> c && c.isPrimitive()));
        if (depth < 2 && held != null && !shape.equals("handler")) {
            var desc = BIND.getDeserializationConfig().introspect(BIND.constructType(held));
            ArrayNode fields = Out.JSON.createArrayNode();
            for (var p : desc.findProperties()) {
                Type pt;
                if (!p.couldDeserialize()) {
                    continue;
                } else if (p.hasSetter()) {
                    pt = p.getSetter().getAnnotated().getGenericParameterTypes()[0];
                } else if (p.hasField()) {
                    pt = p.getField().getAnnotated().getGenericType();
                } else {
                    continue;
                }
                ObjectNode f = entry(fields.addObject(), owner, p.getName(), pt, depth + 1);
                f.put("declaredBy", held.getName());
            }
            if (!fields.isEmpty()) {
                e.set("fields", fields);
            }
        }
        return e;
    }

    /** The SDK class an object, list or map member holds (its element type), or null. */
    private static Class<?> heldClass(Type t) {
        Type x = t;
        if (t instanceof ParameterizedType p) {
            Type[] args = p.getActualTypeArguments();
            x = args.length == 0 ? null : args[args.length - 1];
        } else if (t instanceof Class<?> c && c.isArray()) {
            x = c.getComponentType();
        }
        if (!(x instanceof Class<?> c) || c.isPrimitive() || c.isEnum() || c.isInterface() || c.getName().startsWith("java.")) {
            return null;
        }
        return c;
    }

    /** Whether every setter of c takes a callback (a functional interface). */
    private static boolean allCallbacks(Class<?> c) {
        List<Method> ss = setters(c);
        return !ss.isEmpty() && ss.stream().allMatch(m -> shape(m.getGenericParameterTypes()[0]).equals("handler"));
    }

    /** Sets each named field of {@code config} through its setter, the JSON bound to its type. */
    static void apply(Object config, JsonNode fields, String sdkName, List<Class<?>> definitions) throws Exception {
        if (fields == null || fields.isNull()) {
            return;
        }
        var it = fields.fields();
        while (it.hasNext()) {
            var f = it.next();
            String setter = "set" + Character.toUpperCase(f.getKey().charAt(0)) + f.getKey().substring(1);
            Method m = SessionOptions.setter(config.getClass(), setter);
            if (m == null) {
                throw new Failure.Unsupported(sdkName + ": " + config.getClass().getSimpleName() + " has no field " + f.getKey());
            }
            Object arg;
            try {
                arg = convert(f.getValue(), m.getGenericParameterTypes()[0], definitions);
            } catch (IllegalArgumentException e) {
                throw new Failure.Unsupported(sdkName + ": " + config.getClass().getSimpleName() + "." + f.getKey()
                        + " cannot hold " + f.getValue() + ": " + Failure.message(e));
            }
            m.invoke(config, arg);
        }
    }

    /**
     * A JSON value as the declared type: a definition (one of {@code definitions}, or a type
     * they extend, such as the abstract McpServerConfig), and lists and maps of them, are built
     * member by member from keys named as the inventory names them ({@link #build}); anything
     * else is built by name ({@link ByName}), strictly.
     */
    static Object convert(JsonNode v, Type t, List<Class<?>> definitions) throws Exception {
        Class<?> raw = t instanceof ParameterizedType p ? (Class<?>) p.getRawType() : t instanceof Class<?> c ? c : Object.class;
        Type[] args = t instanceof ParameterizedType p ? p.getActualTypeArguments() : new Type[0];
        if (List.class.isAssignableFrom(raw) && args.length == 1 && holdsDefinition(args[0], definitions)) {
            if (!v.isArray()) {
                throw new IllegalArgumentException("expected a list");
            }
            List<Object> out = new ArrayList<>();
            for (JsonNode x : v) {
                out.add(convert(x, args[0], definitions));
            }
            return out;
        }
        if (Map.class.isAssignableFrom(raw) && args.length == 2 && holdsDefinition(args[1], definitions)) {
            if (!v.isObject()) {
                throw new IllegalArgumentException("expected an object");
            }
            Map<String, Object> out = new LinkedHashMap<>();
            var it = v.fields();
            while (it.hasNext()) {
                var e = it.next();
                out.put(e.getKey(), convert(e.getValue(), args[1], definitions));
            }
            return out;
        }
        if (holdsDefinition(t, definitions)) {
            return build(v, raw, definitions);
        }
        return ByName.strict(t, v, BIND);
    }

    private static boolean holdsDefinition(Type t, List<Class<?>> definitions) {
        return t instanceof Class<?> c && c != Object.class && definitions.stream().anyMatch(c::isAssignableFrom);
    }

    /**
     * A definition of type {@code target} from an object keyed by its member names: the first
     * definition class assignable to it that has a member for every key (McpStdioServerConfig for
     * a command, McpHttpServerConfig for a url), built through its setters or, for a record, its
     * canonical constructor; a key no such class has is an error, never dropped.
     */
    static Object build(JsonNode v, Class<?> target, List<Class<?>> definitions) throws Exception {
        if (!v.isObject()) {
            throw new IllegalArgumentException("expected an object");
        }
        List<String> why = new ArrayList<>();
        for (Class<?> c : definitions) {
            if (!target.isAssignableFrom(c) || Modifier.isAbstract(c.getModifiers())) {
                continue;
            }
            Map<String, Type> members = members(c);
            List<String> missing = new ArrayList<>();
            v.fieldNames().forEachRemaining(k -> {
                if (!members.containsKey(k)) {
                    missing.add(k);
                }
            });
            if (!missing.isEmpty()) {
                why.add(c.getSimpleName() + " has no " + String.join(", ", missing));
                continue;
            }
            // A callback the definition's type requires that the value lacks gets one that does
            // nothing (capability surface.callbacks): a JSON value cannot hold it.
            List<String> required = requiredByFactories(c);
            if (c.isRecord()) {
                RecordComponent[] comps = c.getRecordComponents();
                Object[] values = new Object[comps.length];
                Class<?>[] types = new Class<?>[comps.length];
                for (int i = 0; i < comps.length; i++) {
                    types[i] = comps[i].getType();
                    JsonNode x = v.get(comps[i].getName());
                    values[i] = x == null ? null : convert(x, comps[i].getGenericType(), definitions);
                    if (x == null && required.contains(comps[i].getName())
                            && shape(comps[i].getGenericType()).equals("handler")) {
                        values[i] = noop(comps[i].getType());
                    }
                }
                Constructor<?> ctor = c.getDeclaredConstructor(types);
                return ctor.newInstance(values);
            }
            Object out = c.getDeclaredConstructor().newInstance();
            var it = v.fields();
            while (it.hasNext()) {
                var e = it.next();
                Method m = SessionOptions.setter(c, "set" + Character.toUpperCase(e.getKey().charAt(0)) + e.getKey().substring(1));
                m.invoke(out, convert(e.getValue(), m.getGenericParameterTypes()[0], definitions));
            }
            return out;
        }
        throw new IllegalArgumentException("no " + target.getSimpleName() + " holds " + v + " (" + String.join("; ", why) + ")");
    }

    /**
     * Registers on {@code config}, for each name of {@code names} (the command's
     * "surfaceHandlers"), a callback that does nothing through the handler's own setter
     * (PROTOCOL.md "Surface"): a functional interface gets {@link #noop} of it, a class whose
     * setters all take callbacks (SessionHooks) an instance with a do-nothing callback in each.
     * A handler the driver set already (the permission handler, event forwarding, a handler
     * option), as its getter shows, keeps the driver's own.
     */
    static List<String> registerHandlers(Object config, JsonNode names, String sdkName, Consumer<String> called) throws Exception {
        List<String> kept = new ArrayList<>();
        if (names == null || names.isNull()) {
            return kept;
        }
        Class<?> type = config.getClass();
        for (JsonNode n : names) {
            String name = n.asText();
            Method set = name.isEmpty() ? null
                    : SessionOptions.setter(type, "set" + Character.toUpperCase(name.charAt(0)) + name.substring(1));
            Type t = set == null ? null : set.getGenericParameterTypes()[0];
            Class<?> c = set == null ? null : set.getParameterTypes()[0];
            boolean callback = t != null && shape(t).equals("handler");
            boolean callbacks = c != null && !callback && shape(t).equals("object") && allCallbacks(c);
            if (!callback && !callbacks) {
                throw new Failure.Unsupported(sdkName + ": " + type.getSimpleName() + " has no handler " + name
                        + (set == null ? "" : " (" + t.getTypeName() + " is not a callback)"));
            }
            if (current(config, name) != null) {
                kept.add(name);
                continue;
            }
            Runnable onCall = () -> called.accept(name);
            set.invoke(config, callback ? noop(c, onCall) : noopCallbacks(c, onCall));
        }
        return kept;
    }

    /** What the getter of a member holds (null when it has no getter). */
    private static Object current(Object config, String name) {
        String up = Character.toUpperCase(name.charAt(0)) + name.substring(1);
        for (String g : List.of("get" + up, "is" + up)) {
            try {
                Method m = config.getClass().getMethod(g);
                if (m.getParameterCount() == 0) {
                    return m.invoke(config);
                }
            } catch (ReflectiveOperationException e) {
                // no such getter
            }
        }
        return null;
    }

    /** An instance of a class of callbacks (SessionHooks) with a do-nothing callback in each setter. */
    static Object noopCallbacks(Class<?> c) throws Exception {
        return noopCallbacks(c, null);
    }

    /** {@link #noopCallbacks(Class)} whose callbacks run {@code onCall} (when given) first. */
    static Object noopCallbacks(Class<?> c, Runnable onCall) throws Exception {
        Object out = c.getDeclaredConstructor().newInstance();
        for (Method m : setters(c)) {
            m.invoke(out, noop(m.getParameterTypes()[0], onCall));
        }
        return out;
    }

    /**
     * A callback of the functional interface {@code iface} that does nothing and answers the
     * language's empty value of its return type: nothing for void, a CompletableFuture completed
     * with null (every handler of this SDK answers asynchronously), Optional.empty(), a
     * primitive's zero, else null.
     */
    static Object noop(Class<?> iface) {
        return noop(iface, null);
    }

    /** {@link #noop(Class)} that runs {@code onCall} (when given) before it answers. */
    static Object noop(Class<?> iface, Runnable onCall) {
        InvocationHandler h = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> "do-nothing " + iface.getSimpleName();
                };
            }
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            if (onCall != null) {
                onCall.run();
            }
            return empty(method.getReturnType());
        };
        return Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, h);
    }

    private static Object empty(Class<?> r) {
        if (r == void.class) {
            return null;
        }
        if (CompletableFuture.class.isAssignableFrom(r)
                || r.isAssignableFrom(CompletableFuture.class) && r != Object.class) {
            return CompletableFuture.completedFuture(null);
        }
        if (r == Optional.class) {
            return Optional.empty();
        }
        if (r == boolean.class) {
            return false;
        }
        if (r == char.class) {
            return '\0';
        }
        if (r.isPrimitive()) {
            return switch (r.getName()) {
                case "byte" -> (byte) 0;
                case "short" -> (short) 0;
                case "int" -> 0;
                case "long" -> 0L;
                case "float" -> 0f;
                default -> 0d;
            };
        }
        return null;
    }
}
