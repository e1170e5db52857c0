package conformance.driver;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.AnnotatedMethod;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Runtime-to-SDK handlers (PROTOCOL.md "Generated RPC layer", Runtime→SDK methods): for each
 * clientSession / clientGlobal method the harness names, the SDK's public handler for it,
 * registered on the session config the way an application would. The only one this SDK's
 * public API has is the session's hooks (SessionConfig#setHooks, one handler per hook type
 * through SessionHooks#setOn&lt;HookType&gt;), which serves hooks.invoke; every other method is
 * named unhandled with the symbol a reader can look for. Reflection keeps it generation-neutral
 * (the hook classes live in different packages in 0.x and 1.x).
 */
final class Handlers {
    static final String HOOKS = "hooks.invoke";

    // The SDK's mapper for a hook output type ByName cannot build by name. ByName builds the
    // output class by property name; a key that class does not have is dropped and named
    // unrepresentable (the application cannot return it), not an error.
    private static final ObjectMapper LENIENT = Out.JSON.copy()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    // Re-serialises a typed hook input the SDK's way: its JSON-RPC mapper leaves null fields out
    // (a hook output with every field null goes on the wire as {}), so a null field here is one
    // the application's hook did not get, not a key; a primitive's default (0) stays.
    private static final ObjectMapper SDK_WAY = Out.JSON.copy()
            .setSerializationInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL);

    private Handlers() {
    }

    /**
     * Registers on {@code config} the handlers of {@code handlers} (the command's "handlers"
     * argument) this SDK has a public API for; returns {"handled", "unhandled"}.
     */
    static ObjectNode apply(Object config, Class<?> clientOptions, JsonNode handlers, String session, String sdkName,
            Out out) throws Exception {
        ObjectNode account = Out.object();
        ArrayNode handled = account.putArray("handled");
        ObjectNode unhandled = account.putObject("unhandled");
        if (handlers == null || !handlers.isObject()) {
            return account;
        }
        Iterator<String> methods = handlers.fieldNames();
        while (methods.hasNext()) {
            String m = methods.next();
            if (m.equals(HOOKS)) {
                String missing = hooks(config, handlers.get(m), session, sdkName, out, account);
                if (missing == null) {
                    handled.add(m);
                } else {
                    unhandled.put(m, sdkName + ": no public API registers a " + m + " handler (" + missing + ")");
                }
                continue;
            }
            unhandled.put(m, unhandledReason(m, config.getClass(), clientOptions, sdkName));
        }
        return account;
    }

    /**
     * The public API a later SDK generation serves a runtime-to-SDK method with (the 1.x line of
     * github/copilot-sdk java/), as (on the client options?, setter): the symbol an unhandled
     * method names as absent. Keyed by method or by namespace prefix.
     */
    private static final Map<String, Map.Entry<Boolean, String>> LATER_API = Map.of(
            "gitHubTelemetry.event", Map.entry(true, "setOnGitHubTelemetry"),
            "llmInference.", Map.entry(true, "setRequestHandler"),
            "providerToken.getToken", Map.entry(false, "setProviders"));

    /**
     * Why {@code m} is unhandled: the setter that serves it in a later generation is absent
     * (named as {@code Class#setter}), or present but not mapped by this driver yet ("driver:"),
     * or no handler, provider or callback of the config classes serves its namespace at all.
     */
    static String unhandledReason(String m, Class<?> sessionConfig, Class<?> clientOptions, String sdkName) {
        String ns = m.substring(0, Math.max(m.lastIndexOf('.'), 0));
        String none = "no " + ns + " handler, provider or callback in " + sessionConfig.getSimpleName() + " or "
                + clientOptions.getSimpleName();
        for (var e : LATER_API.entrySet()) {
            if (m.equals(e.getKey()) || e.getKey().endsWith(".") && m.startsWith(e.getKey())) {
                Class<?> owner = e.getValue().getKey() ? clientOptions : sessionConfig;
                String symbol = owner.getName() + "#" + e.getValue().getValue();
                if (SessionOptions.setter(owner, e.getValue().getValue()) != null) {
                    return "driver: the java driver does not map " + m + " to " + symbol + " yet (" + sdkName + ")";
                }
                return sdkName + ": no public API registers a " + m + " handler (" + symbol + " is absent; " + none + ")";
            }
        }
        return sdkName + ": no public API registers a " + m + " handler (" + none + ")";
    }

    /**
     * The hooks.invoke handler: one hook per hook type the runtime will invoke, set through the
     * hooks class's setOn&lt;HookType&gt;. Returns null when registered, else the missing symbol.
     */
    private static String hooks(Object config, JsonNode spec, String session, String sdkName, Out out,
            ObjectNode account) throws Exception {
        Method setHooks = SessionOptions.setter(config.getClass(), "setHooks");
        if (setHooks == null) {
            return config.getClass().getSimpleName() + " has no setHooks";
        }
        Class<?> hooksClass = setHooks.getParameterTypes()[0];
        Object hooks = hooksClass.getDeclaredConstructor().newInstance();
        JsonNode result = spec.path("result");
        List<String> absent = new ArrayList<>();
        for (JsonNode p : spec.path("params")) {
            String type = p.path("hookType").asText("");
            if (type.isEmpty()) {
                continue;
            }
            String name = "setOn" + Character.toUpperCase(type.charAt(0)) + type.substring(1);
            Method set = SessionOptions.setter(hooksClass, name);
            if (set == null) {
                // No application hook can receive this hook type: named in unhandledCases
                // (PROTOCOL.md), so the sweep records the SDK's answer instead of judging a handler.
                absent.add(hooksClass.getSimpleName() + "#" + name);
                ObjectNode cases = account.has("unhandledCases") ? (ObjectNode) account.get("unhandledCases")
                        : account.putObject("unhandledCases");
                ArrayNode list = cases.has(HOOKS) ? (ArrayNode) cases.get(HOOKS) : cases.putArray(HOOKS);
                ObjectNode c = list.addObject();
                c.putObject("params").put("hookType", type);
                c.put("reason", sdkName + ": " + hooksClass.getName() + " has no " + name);
                continue;
            }
            set.invoke(hooks, hook(set.getParameterTypes()[0], type, result, session, out));
            Method sam = samOf(set.getParameterTypes()[0]);
            if (sam != null && sam.getParameterCount() > 0) {
                ObjectNode inputs = account.has("hookInputs") ? (ObjectNode) account.get("hookInputs")
                        : account.putObject("hookInputs");
                inputs.set(type, hookInputType(sam.getParameterTypes()[0]));
            }
        }
        if (!absent.isEmpty()) {
            out.log(sdkName + ": hook types without a setter: " + String.join(", ", absent));
        }
        setHooks.invoke(config, hooks);
        return null;
    }

    /**
     * A hook of the SDK's functional interface {@code iface}: it reports the typed input
     * (re-serialised with Jackson) and the invocation's session id, and answers the harness's
     * output converted into the interface's output class.
     */
    private static Object hook(Class<?> iface, String type, JsonNode result, String session, Out out) {
        Method sam = null;
        for (Method m : iface.getMethods()) {
            if (!m.isDefault() && !java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
                sam = m;
            }
        }
        Class<?> outputClass = outputClass(sam);
        JsonNode output = result.path("output");
        InvocationHandler h = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> iface.getSimpleName() + " hook " + type;
                };
            }
            ObjectNode params = Out.object();
            params.put("hookType", type);
            params.set("input", args != null && args.length > 0 ? readHookInput(args[0]) : null);
            String sessionId = args != null && args.length > 1 ? sessionIdOf(args[1]) : null;
            if (sessionId != null) {
                params.put("sessionId", sessionId);
            }
            Object value = null;
            List<String> unrepresentable = new ArrayList<>();
            if (result.has("output") && !output.isNull()) {
                try {
                    ByName.Result built = new ByName.Result();
                    value = ByName.build(outputClass, output, built, "/output", LENIENT);
                    JsonNode back = SDK_WAY.valueToTree(value);
                    output.fieldNames().forEachRemaining(k -> {
                        String p = ByName.ptr("/output", k);
                        // a key set by name that the SDK's serialiser leaves out is the SDK's, not a limit of the type
                        if (!back.has(k) && !built.placed.contains(p)) {
                            unrepresentable.add(p);
                        }
                    });
                } catch (Exception e) {
                    unrepresentable.add("/output");
                }
            }
            ObjectNode args2 = Out.object();
            args2.put("session", session);
            args2.put("method", HOOKS);
            args2.set("params", params);
            if (!unrepresentable.isEmpty()) {
                ArrayNode u = args2.putArray("unrepresentable");
                unrepresentable.forEach(u::add);
            }
            out.event("rpc.handled", args2);
            Object answer = value;
            return Holds.held(session, HOOKS).thenApply(v -> answer);
        };
        return Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, h);
    }

    /** The single abstract method of a hook's functional interface (null when it has none). */
    private static Method samOf(Class<?> iface) {
        for (Method m : iface.getMethods()) {
            if (!m.isDefault() && !java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
                return m;
            }
        }
        return null;
    }

    /** The Jackson properties of a hook input class that have a getter (what an application reads). */
    private static List<BeanPropertyDefinition> readable(Class<?> input) {
        List<BeanPropertyDefinition> out = new ArrayList<>();
        for (BeanPropertyDefinition p : Out.JSON.getSerializationConfig().introspect(Out.JSON.constructType(input))
                .findProperties()) {
            if (p.getGetter() != null) {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * A hook input class as declared (PROTOCOL.md "Runtime→SDK methods", hookInputs): each
     * property an application reads through a getter, under the JSON name the SDK's Jackson
     * annotations give it (the wire key), shaped by the getter's type; a reference type tells
     * "not set" (null) apart, a primitive does not.
     */
    static ObjectNode hookInputType(Class<?> input) {
        ObjectNode t = Out.object();
        t.put("declaredBy", input.getName());
        ArrayNode members = t.putArray("members");
        for (BeanPropertyDefinition p : readable(input)) {
            AnnotatedMethod g = p.getGetter();
            Class<?> c = g.getRawType();
            ObjectNode m = members.addObject();
            m.put("name", g.getName());
            m.put("wire", p.getName());
            m.put("type", g.getAnnotated().getGenericReturnType().getTypeName());
            m.put("kind", "field");
            m.put("shape", shapeOf(c));
            m.put("optional", !c.isPrimitive());
            m.put("declaredBy", input.getName());
        }
        return t;
    }

    private static String shapeOf(Class<?> c) {
        if (c == String.class) {
            return "string";
        }
        if (c == boolean.class || c == Boolean.class) {
            return "boolean";
        }
        if (c == long.class || c == int.class || c == Long.class || c == Integer.class || c == short.class) {
            return "integer";
        }
        if (c == double.class || c == float.class || c == Double.class || c == Float.class) {
            return "number";
        }
        if (c.isEnum()) {
            return "string";
        }
        if (Map.class.isAssignableFrom(c)) {
            return "map";
        }
        if (List.class.isAssignableFrom(c) || c.isArray()) {
            return "array";
        }
        if (c == java.time.Instant.class || c == java.time.OffsetDateTime.class || c == java.util.Date.class) {
            return "date";
        }
        return JsonNode.class.isAssignableFrom(c) || c == Object.class ? "any" : "object";
    }

    /**
     * What the application reads from a hook's input: each getter called, its value under the
     * property's wire key (a null getter, "not set", left out; a date as RFC 3339).
     */
    static JsonNode readHookInput(Object input) throws ReflectiveOperationException {
        if (input == null) {
            return null;
        }
        ObjectNode out = Out.object();
        for (BeanPropertyDefinition p : readable(input.getClass())) {
            Object v = p.getGetter().getAnnotated().invoke(input);
            if (v == null) {
                continue;
            }
            if (v instanceof java.util.Date d) {
                v = d.toInstant();
            }
            out.set(p.getName(), v instanceof java.time.temporal.TemporalAccessor ? Out.JSON.getNodeFactory().textNode(v.toString())
                    : Out.JSON.valueToTree(v));
        }
        return out;
    }

    /** The T of the hook method's CompletableFuture&lt;T&gt; (Object when it cannot be read). */
    private static Class<?> outputClass(Method sam) {
        if (sam != null) {
            Type t = sam.getGenericReturnType();
            if (t instanceof ParameterizedType pt && pt.getActualTypeArguments().length == 1
                    && pt.getActualTypeArguments()[0] instanceof Class<?> c) {
                return c;
            }
        }
        return Object.class;
    }

    private static String sessionIdOf(Object invocation) {
        if (invocation == null) {
            return null;
        }
        try {
            Object v = invocation.getClass().getMethod("getSessionId").invoke(invocation);
            return v == null ? null : v.toString();
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }
}
