package conformance.driver;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The generic {@code rpc} / {@code rpcBatch} commands (PROTOCOL.md, "Generated RPC layer"): a schema
 * method is called through the SDK's generated typed layer ({@code generated/rpc/*Api}), reached
 * from the client's and the session's {@code getRpc()}. The layer is found by reflection, never
 * from a list: public fields holding another generated API object are namespaces, public methods
 * returning a CompletableFuture are calls, and a schema name matches the path compared
 * case-insensitively ({@code session.model.switchTo} → {@code getRpc().model.switchTo(…)}).
 *
 * <p>The params are built into the wrapper's params record by component name through its canonical
 * constructor ({@link ByName}, never the SDK's Jackson mapping), and the record is serialised back
 * with the wrapper's own {@code MAPPER} (the SDK's NON_NULL mapper that builds the request): every
 * params pointer not carried as given is {@code unrepresentable} (an explicit null NON_NULL drops,
 * a key the record has no component for, a value its types change), except a key set on a
 * component by name that the serialiser leaves out or renames: that is the SDK's, for the harness
 * to see on the wire. Session records carry a {@code sessionId} component that the
 * wrapper overwrites with the session's own; it is left out of the params given.
 */
final class Rpc {
    private final SdkAdapter sdk;
    private final Map<Class<?>, Map<String, List<Object>>> indexes = new ConcurrentHashMap<>();
    private final Map<ObjectMapper, ObjectMapper> readers = new ConcurrentHashMap<>();

    Rpc(SdkAdapter sdk) {
        this.sdk = sdk;
    }

    /**
     * The package of the SDK's generated wrappers, read from the SDK itself, never assumed: the
     * type the client's {@code getRpc()} returns (ServerRpc) is in it. Each API generation keeps
     * them elsewhere (0.x com.github.copilot.sdk.generated.rpc, 1.x com.github.copilot.generated.rpc);
     * without a getRpc() it is {@code generated.rpc} beside the client class, the place the
     * capability audit is told to look.
     */
    String generatedPackage() {
        Class<?> client = sdk.clientClass();
        try {
            return client.getMethod("getRpc").getReturnType().getPackageName();
        } catch (NoSuchMethodException e) {
            return client.getPackageName() + ".generated.rpc";
        }
    }

    /** Declares {@code rpc.generated} from the SDK's classes. */
    void declare(Map<String, Boolean> caps, Map<String, String> notes) {
        String pkg = generatedPackage();
        Class<?> server = type(pkg, "ServerRpc");
        Class<?> session = type(pkg, "SessionRpc");
        boolean has = server != null && session != null;
        caps.put("rpc.generated", has);
        if (!has) {
            notes.put("rpc.generated", "this SDK version has no generated ServerRpc/SessionRpc (" + pkg + ")");
            return;
        }
        Set<java.lang.reflect.Type> seen = new HashSet<>();
        for (Class<?> root : List.of(server, session)) {
            for (List<Object> path : index(root).values()) {
                Method m = (Method) path.get(path.size() - 1);
                if (m.getParameterCount() == 1) {
                    ByName.plan(m.getGenericParameterTypes()[0], seen);
                }
            }
        }
        notes.put("rpc.generated", index(server).size() + " client (ServerRpc) and " + index(session).size()
                + " session (SessionRpc) generated wrappers found by reflection; params records built by name "
                + "(ByName: the canonical constructor), results serialised with the wrapper's own ObjectMapper (NON_NULL: an explicit null "
                + "is dropped and reported unrepresentable, as is a key the record has no component for)");
    }

    private static Class<?> type(String pkg, String simple) {
        try {
            return Class.forName(pkg + "." + simple);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    ObjectNode call(JsonNode args) throws Exception {
        return invoke(args);
    }

    ObjectNode batch(JsonNode args) {
        ArrayNode outcomes = Out.JSON.createArrayNode();
        for (JsonNode c : args.path("calls")) {
            ObjectNode o = Out.object();
            try {
                ObjectNode r = invoke(c);
                o.put("outcome", "ok");
                o.setAll(r);
            } catch (Failure.Unsupported u) {
                o.put("outcome", "unsupported");
                o.put("reason", u.getMessage());
            } catch (Failure.DriverError d) {
                o.put("outcome", "error");
                o.set("error", Failure.errorObject("DriverError", d.getMessage()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                o.put("outcome", "error");
                o.set("error", Failure.errorObject("InterruptedException", Failure.message(e)));
            } catch (Exception | LinkageError e) {
                o.put("outcome", "error");
                o.set("error", Failure.errorObject(e));
            }
            outcomes.add(o);
        }
        ObjectNode result = Out.object();
        result.set("outcomes", outcomes);
        return result;
    }

    private ObjectNode invoke(JsonNode args) throws Exception {
        String method = args.path("method").asText("");
        boolean onSession = args.hasNonNull("session");
        if (onSession == args.hasNonNull("client")) {
            throw new Failure.DriverError("rpc needs exactly one of client and session");
        }
        Object owner = onSession ? sdk.sessionObject(args.get("session").asText())
                : sdk.clientObject(args.get("client").asText());
        Object root = owner.getClass().getMethod("getRpc").invoke(owner);
        String name = method;
        String prefix = onSession ? "session." : "server.";
        if (name.startsWith(prefix)) {
            name = name.substring(prefix.length());
        }
        List<Object> path = index(root.getClass()).get(name.toLowerCase(Locale.ROOT));
        if (path == null) {
            throw new Failure.Unsupported("copilot-sdk-java " + sdk.version() + ": " + method
                    + " is not in this SDK's generated layer");
        }
        Object target = root;
        for (Object step : path.subList(0, path.size() - 1)) {
            target = ((Field) step).get(target);
        }
        Method m = (Method) path.get(path.size() - 1);
        ObjectMapper wire = wireMapper(target.getClass());
        JsonNode params = args.get("params");
        if (params == null || params.isNull()) {
            params = Out.object();
        }
        List<String> lost = new ArrayList<>();
        Object future;
        if (m.getParameterCount() == 0) {
            ByName.unrepresentable(params, Out.object(), new ByName.Result(), "", lost);
            future = m.invoke(target);
        } else {
            ObjectMapper reader = readers.computeIfAbsent(wire,
                    w -> w.copy().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false));
            ByName.Result built = new ByName.Result();
            Object request = ByName.build(m.getGenericParameterTypes()[0], params, built, "", reader);
            JsonNode held = wire.valueToTree(request);
            if (held instanceof ObjectNode o && onSession && !params.has("sessionId")) {
                o.remove("sessionId"); // the wrapper puts the session's own id
            }
            ByName.unrepresentable(params, held, built, "", lost);
            future = m.invoke(target, request);
        }
        Object value = Cancel.await((CompletableFuture<?>) future);
        Collections.sort(lost);
        ObjectNode result = Out.object();
        result.set("result", value == null ? NullNode.getInstance() : wire.valueToTree(value));
        ArrayNode unrep = result.putArray("unrepresentable");
        lost.forEach(unrep::add);
        return result;
    }

    /** The wrapper's own static MAPPER (what builds its request), else the driver's mapper. */
    private static ObjectMapper wireMapper(Class<?> api) {
        try {
            Field f = api.getDeclaredField("MAPPER");
            f.setAccessible(true);
            return (ObjectMapper) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Out.JSON;
        }
    }

    /** Lower-cased dotted path → fields to follow, then the method. */
    private Map<String, List<Object>> index(Class<?> root) {
        return indexes.computeIfAbsent(root, r -> {
            Map<String, List<Object>> idx = new TreeMap<>();
            walk(r, "", new ArrayList<>(), idx);
            return idx;
        });
    }

    private static boolean isApi(Class<?> t) {
        return t.getPackageName().endsWith(".generated.rpc") && (t.getSimpleName().endsWith("Api")
                || t.getSimpleName().endsWith("Rpc"));
    }

    private static void walk(Class<?> t, String prefix, List<Object> fields, Map<String, List<Object>> idx) {
        for (Field f : t.getFields()) {
            if (!Modifier.isStatic(f.getModifiers()) && isApi(f.getType())) {
                List<Object> next = new ArrayList<>(fields);
                next.add(f);
                walk(f.getType(), prefix + f.getName().toLowerCase(Locale.ROOT) + ".", next, idx);
            }
        }
        for (Method m : t.getMethods()) {
            if (m.getDeclaringClass() == t && !Modifier.isStatic(m.getModifiers())
                    && CompletableFuture.class.isAssignableFrom(m.getReturnType()) && m.getParameterCount() <= 1) {
                List<Object> path = new ArrayList<>(fields);
                path.add(m);
                idx.put(prefix + m.getName().toLowerCase(Locale.ROOT), path);
            }
        }
    }
}
