package conformance.driver;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What every adapter shares, whatever package the SDK generation uses: the handle tables, the
 * client and session lifecycle around the SDK calls, the reply of send, the installed version, the
 * forwarding of session events, and everything about session and connect options, tool results and
 * requests from the runtime that works by reflection on the SDK's classes ({@link Types}). An
 * adapter (src/&lt;api&gt;/java/conformance/driver/Sdk.java) supplies only the calls that name the
 * SDK's own classes.
 *
 * @param <C> the SDK's client class
 * @param <S> the SDK's session class
 */
abstract class SdkBase<C, S> implements SdkAdapter {
    private static final String ARTIFACT = "com.github:copilot-sdk-java";

    protected final Out out;
    private final Map<String, C> clients = new ConcurrentHashMap<>();
    private final Map<String, S> sessions = new ConcurrentHashMap<>();
    private final Map<String, String> owner = new ConcurrentHashMap<>(); // session handle -> client handle
    private final String version;
    private final Types types;
    private final Class<?> anchor;

    /**
     * The SDK's classes the shared option and tool-result code reflects over: the session and
     * resume configs, the client options, and the tool-result records (the binary one is what
     * ToolResultObject's binaryResultsForLlm holds), and the tool handler interface.
     */
    protected record Types(Class<?> sessionConfig, Class<?> resumeConfig, Class<?> clientOptions,
            Class<? extends Record> toolResult, Class<? extends Record> binaryResult, Class<?> toolHandler) {
    }

    /**
     * The tool handler interface's abstract method when it returns a {@link java.util.concurrent.Future}
     * (which the SDK can cancel: how it tells a held handler that the runtime resolved its call,
     * capability handler.cancel.tool), else null.
     */
    protected java.lang.reflect.Method toolCancelWay() {
        for (java.lang.reflect.Method m : types.toolHandler().getMethods()) {
            if (java.lang.reflect.Modifier.isAbstract(m.getModifiers())
                    && java.util.concurrent.Future.class.isAssignableFrom(m.getReturnType())) {
                return m;
            }
        }
        return null;
    }

    /** The request kinds whose handlers the driver holds: the capability's last word, the SDK's interface. */
    private static final String[][] REQUEST_HANDLERS = {{"permission", "PermissionHandler"}, {"elicitation", "ElicitationHandler"}};

    /** "Interface#method returns Type" when the SDK's handler interface answers with a Future, else null. */
    private String requestCancelWay(String iface) {
        try {
            Class<?> c = Class.forName(types.toolHandler().getPackageName() + "." + iface);
            for (java.lang.reflect.Method m : c.getMethods()) {
                if (java.lang.reflect.Modifier.isAbstract(m.getModifiers())
                        && java.util.concurrent.Future.class.isAssignableFrom(m.getReturnType())) {
                    return iface + "#" + m.getName() + " returns a " + m.getReturnType().getSimpleName();
                }
            }
        } catch (ClassNotFoundException e) {
            return null;
        }
        return null;
    }

    /** {@code anchor} is the SDK's client class: its jar's Maven descriptor names the version. */
    protected SdkBase(Out out, Class<?> anchor, Types types) {
        this.out = out;
        this.version = installedVersion(anchor);
        this.types = types;
        this.anchor = anchor;
    }

    @Override
    public Class<?> clientClass() {
        return anchor;
    }

    // The SDK calls an adapter makes with its own classes.

    /**
     * Starts a client on the runtime at address, or one the SDK spawns from cliPath over stdio;
     * {@code options} are the protocol's connect options (see {@link #applyConnectOptions}).
     */
    protected abstract C start(String address, String cliPath, Map<String, String> env, JsonNode options)
            throws Exception;

    /** {@code options} are the protocol's session options (see {@link #withOptions}). */
    protected abstract S create(C client, String session, List<ToolSpec> tools, JsonNode options, String gitHubToken)
            throws Exception;

    protected abstract S resume(C client, String session, String sessionId, List<ToolSpec> tools, JsonNode options)
            throws Exception;

    /**
     * The handler object behind a handler session option (userInputHandler, elicitationHandler,
     * hooks), with the fixed behaviour of PROTOCOL.md: the first choice ({@link #firstChoice}), a
     * cancel, a pre-tool-use hook with no output.
     */
    protected abstract Object handler(String option, String session);

    protected abstract String sessionId(S session);

    /** Sends without waiting; returns the message id or null. */
    protected abstract String sendOnly(S session, String prompt) throws Exception;

    /** Sends and waits for the assistant's message; null when there is none. */
    protected abstract Reply sendAndWait(S session, String prompt, Long timeoutMs) throws Exception;

    /** Closes a session (the SDK sends session.destroy). */
    protected abstract void close(S session) throws Exception;

    protected abstract Future<?> stop(C client);

    protected abstract void forceStop(C client);

    /** The assistant's reply to send, as the adapter read it from the SDK's event. */
    protected record Reply(String messageId, String content) {
    }

    /** The version in the SDK jar's own Maven descriptor (pom.properties). */
    private static String installedVersion(Class<?> anchor) {
        Properties p = new Properties();
        try (InputStream in = anchor
                .getResourceAsStream("/META-INF/maven/com.github/copilot-sdk-java/pom.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // fall through to the manifest
        }
        String v = p.getProperty("version");
        if (v == null) {
            v = anchor.getPackage().getImplementationVersion();
        }
        return v != null ? v : "unknown";
    }

    protected String sdkName() {
        return ARTIFACT + " " + version;
    }

    @Override
    public String version() {
        return version;
    }

    /** The environment of a runtime the SDK spawns: the harness's, minus what would redirect it. */
    protected static Map<String, String> childEnv(Map<String, String> env) {
        Map<String, String> childEnv = new HashMap<>(System.getenv());
        childEnv.remove("COPILOT_SDK_DEFAULT_CONNECTION");
        childEnv.putAll(env);
        return childEnv;
    }

    @Override
    public void connect(String client, String address, String cliPath, Map<String, String> env, JsonNode options)
            throws Exception {
        if (clients.containsKey(client)) {
            throw new Failure.DriverError("client handle already connected: " + client);
        }
        clients.put(client, start(address, cliPath, env, options));
    }

    @Override
    public String createSession(String client, String session, List<ToolSpec> tools, JsonNode options,
            String gitHubToken) throws Exception {
        C c = client(client);
        checkFreeSession(session);
        return keep(client, session, create(c, session, tools, options, gitHubToken));
    }

    @Override
    public String resumeSession(String client, String session, String sessionId, List<ToolSpec> tools,
            JsonNode options) throws Exception {
        C c = client(client);
        checkFreeSession(session);
        return keep(client, session, resume(c, session, sessionId, tools, options));
    }

    /** Sets the protocol's connect options on the SDK's CopilotClientOptions. */
    protected void applyConnectOptions(Object clientOptions, JsonNode options, boolean tcp) throws Exception {
        ConnectOptions.apply(clientOptions, options, tcp, sdkName());
        JsonNode fields = nextFields.get();
        nextFields.remove();
        Surface.apply(clientOptions, fields, sdkName(), definitions());
    }

    /**
     * The symbols behind the capabilities only this API generation decides (tool options,
     * high-level and generated session APIs), as {@code package.Class#member}.
     */
    protected abstract Map<String, String> generationSymbols();

    @Override
    public Map<String, String> missing() {
        Map<String, String> symbols = new LinkedHashMap<>(generationSymbols());
        symbols.put("session.gitHubToken", types.sessionConfig().getName() + "#" + TOKEN_SETTER);
        symbols.put("tool.result.binary", types.toolResult().getName() + "#binaryResultsForLlm");
        symbols.put("tool.result.sessionLog", types.toolResult().getName() + "#sessionLog");
        symbols.put("tool.result.telemetry", types.toolResult().getName() + "#toolTelemetry");
        symbols.put("tool.result.binary.metadata", types.binaryResult().getName() + "#metadata");
        for (SessionOptions.Option o : SessionOptions.ALL) {
            boolean onResume = SessionOptions.setter(types.resumeConfig(), o.setter()) != null;
            Class<?> where = !onResume || o.resumeOnly() ? types.resumeConfig() : types.sessionConfig();
            symbols.put("session.option." + o.name(), where.getName() + "#" + o.setter());
        }
        for (ConnectOptions.Option o : ConnectOptions.ALL) {
            symbols.put("connect.option." + o.name(), types.clientOptions().getName() + "#" + o.setter());
        }
        symbols.put("handler.hooks", types.sessionConfig().getName() + "#setHooks");
        for (String[] k : REQUEST_HANDLERS) {
            symbols.put("handler.cancel." + k[0], types.toolHandler().getPackageName() + "." + k[1] + "#handle");
        }
        symbols.put("handler.cancel.command", "driver: the scenario's session registers no command handler to hold");
        symbols.put("handler.cancel.tool", types.toolHandler().getName() + "#invoke");
        symbols.put("handler.hooks.inputs", types.sessionConfig().getName() + "#setHooks");
        // The 1.x line serves the runtime's model requests through CopilotClientOptions#setRequestHandler.
        symbols.put("rpc.requestHandler", types.clientOptions().getName() + "#setRequestHandler");
        Map<String, Boolean> caps = capabilities();
        Map<String, String> out = new TreeMap<>();
        symbols.forEach((capability, symbol) -> {
            if (!Boolean.TRUE.equals(caps.get(capability))) {
                out.put(capability, symbol);
            }
        });
        return out;
    }

    /** The SDK's SessionConfig or ResumeSessionConfig with the protocol's session options applied. */
    protected <T> T withOptions(T config, JsonNode options, boolean resume, String session) throws Exception {
        SessionOptions.apply(config, options, resume, sdkName(), name -> handler(name, session));
        JsonNode fields = nextFields.get();
        nextFields.remove();
        Surface.apply(config, fields, sdkName(), definitions());
        SurfacePending sp = nextSurfaceHandlers.get();
        nextSurfaceHandlers.remove();
        surfaceKept.remove();
        if (sp != null) {
            surfaceKept.set(Surface.registerHandlers(config, sp.names(), sdkName(), name -> {
                ObjectNode a = Out.object();
                a.put("session", sp.session());
                a.put("handler", name);
                out.event("surface.handler.called", a);
            }));
        }
        Pending h = nextHandlers.get();
        if (h != null) {
            handlerAccount.set(
                    Handlers.apply(config, types.clientOptions(), h.handlers(), h.session(), sdkName(), out));
        }
        return config;
    }

    private record Pending(JsonNode handlers, String session) {
    }

    // Per thread like nextFields: the runtime-to-SDK handlers the next create or resume registers
    // (Handlers), and the account of what it registered, read back by takeHandlerAccount.
    private final ThreadLocal<Pending> nextHandlers = new ThreadLocal<>();
    private final ThreadLocal<ObjectNode> handlerAccount = new ThreadLocal<>();

    @Override
    public void nextHandlers(JsonNode handlers, String session) {
        nextHandlers.set(handlers == null || handlers.isNull() ? null : new Pending(handlers, session));
        handlerAccount.remove();
    }

    @Override
    public ObjectNode takeHandlerAccount() {
        ObjectNode a = handlerAccount.get();
        handlerAccount.remove();
        nextHandlers.remove();
        List<String> kept = surfaceKept.get();
        surfaceKept.remove();
        if (kept != null && !kept.isEmpty()) {
            if (a == null) {
                a = Out.object();
            }
            kept.forEach(a.putArray("kept")::add);
        }
        return a;
    }

    // Per thread: commands of several scenarios run at once (driver.concurrent), each on a thread
    // of its own from the set of the fields to the create or resume that reads them.
    private final ThreadLocal<JsonNode> nextFields = new ThreadLocal<>();

    /** Waits for an SDK call, bounded by the command's cancelAfterMs (Cancel). */
    protected <T> T awaitCancellable(java.util.concurrent.Future<T> call) throws Exception {
        return Cancel.await(call);
    }

    @Override
    public void nextFields(JsonNode fields) {
        nextFields.set(fields);
    }

    private record SurfacePending(JsonNode names, String session) {
    }

    private final ThreadLocal<SurfacePending> nextSurfaceHandlers = new ThreadLocal<>();
    // The surface handlers the last create or resume left with the driver's own callback.
    private final ThreadLocal<List<String>> surfaceKept = new ThreadLocal<>();

    @Override
    public void nextSurfaceHandlers(JsonNode names, String session) {
        nextSurfaceHandlers.set(names == null || names.isNull() ? null : new SurfacePending(names, session));
    }

    /**
     * The definition owners (PROTOCOL.md "Surface") and the SDK classes declaring each, looked up
     * by name in the config classes' package: an SDK version without one has no such owner.
     */
    private static final Map<String, List<String>> DEFINITION_OWNERS = definitionOwners();

    private static Map<String, List<String>> definitionOwners() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        m.put("tool", List.of("ToolDefinition"));
        m.put("customAgent", List.of("CustomAgentConfig"));
        m.put("mcpServer", List.of("McpStdioServerConfig", "McpHttpServerConfig"));
        m.put("command", List.of("CommandDefinition"));
        m.put("provider", List.of("ProviderConfig"));
        m.put("systemMessage", List.of("SystemMessageConfig"));
        return m;
    }

    private Map<String, List<Class<?>>> definitionClasses() {
        Map<String, List<Class<?>>> out = new LinkedHashMap<>();
        String pkg = types.sessionConfig().getPackageName();
        DEFINITION_OWNERS.forEach((owner, names) -> {
            for (String n : names) {
                try {
                    out.computeIfAbsent(owner, k -> new ArrayList<>())
                            .add(Class.forName(pkg + "." + n, false, types.sessionConfig().getClassLoader()));
                } catch (ClassNotFoundException e) {
                    // not in this SDK version
                }
            }
        });
        return out;
    }

    /** Every definition class, for building definition values (Surface.convert). */
    protected List<Class<?>> definitions() {
        List<Class<?>> out = new ArrayList<>();
        definitionClasses().values().forEach(out::addAll);
        return out;
    }

    @Override
    public ObjectNode surface() {
        Map<String, List<Class<?>>> owners = new java.util.LinkedHashMap<>();
        owners.put("sessionConfig", List.of(types.sessionConfig()));
        owners.put("resumeConfig", List.of(types.resumeConfig()));
        owners.put("clientOptions", List.of(types.clientOptions()));
        owners.putAll(definitionClasses());
        ObjectNode out = Out.object();
        out.set("entries", Surface.entries(owners));
        return out;
    }

    /**
     * The SessionConfig with the application's per-session GitHub token set through its
     * setGitHubToken (found by reflection, like the options, so one adapter serves every version
     * of its generation); a null token is not set at all.
     */
    protected <T> T withToken(T config, String gitHubToken) throws Exception {
        if (gitHubToken == null) {
            return config;
        }
        Method set = SessionOptions.setter(config.getClass(), TOKEN_SETTER);
        if (set == null) {
            throw new Failure.Unsupported(sdkName() + ": " + config.getClass().getSimpleName() + " has no "
                    + TOKEN_SETTER);
        }
        set.invoke(config, gitHubToken);
        return config;
    }

    private static final String TOKEN_SETTER = "setGitHubToken";

    /**
     * The capabilities and notes every generation decides the same way, from its classes: tool
     * results, session and connect options, the reporting permission handler. {@code caps} or
     * {@code notes} may be a scratch map when the caller wants only the other.
     */
    protected void declareShared(Map<String, Boolean> caps, Map<String, String> notes) {
        // The handler's CompletableFuture<Object> may complete with a ToolResultObject (passed
        // through) or any value (a String as is, anything else through the SDK's Jackson
        // ObjectMapper).
        caps.put("tool.result.value", true);
        caps.put("tool.result.object", true);
        caps.put("tool.result.binary", component(types.toolResult(), "binaryResultsForLlm") != null);
        caps.put("tool.result.sessionLog", component(types.toolResult(), "sessionLog") != null);
        caps.put("tool.result.telemetry", component(types.toolResult(), "toolTelemetry") != null);
        caps.put("tool.result.binary.metadata", component(types.binaryResult(), "metadata") != null);
        if (component(types.binaryResult(), "metadata") == null) {
            notes.put("tool.result.binary.metadata", sdkName() + ": " + types.binaryResult().getSimpleName()
                    + " has no metadata component");
        }
        notes.put("tool.result.object", sdkName() + ": " + describe(types.toolResult()) + "; "
                + describe(types.binaryResult()));
        SessionOptions.declare(types.sessionConfig(), types.resumeConfig(), sdkName(), caps, notes);
        ConnectOptions.declare(types.clientOptions(), sdkName(), caps, notes);
        boolean token = SessionOptions.setter(types.sessionConfig(), TOKEN_SETTER) != null;
        caps.put("session.gitHubToken", token);
        if (!token) {
            notes.put("session.gitHubToken", sdkName() + ": " + types.sessionConfig().getSimpleName() + " has no "
                    + TOKEN_SETTER);
        }
        caps.put("handler.permission", true);
        caps.put("surface", true);
        // Surface.registerHandlers: a do-nothing callback of each named handler's own type.
        caps.put("surface.handlers", true);
        // Surface.registerHandlers: each do-nothing callback reports its calls.
        caps.put("surface.handlers.called", true);
        // Surface.build: a definition's required callback (a record component every public
        // factory takes a callback for: ToolDefinition's handler) that fields leave out gets a
        // do-nothing one; a setter-built definition (CommandDefinition) has no required member.
        caps.put("surface.callbacks", true);
        notes.put("surface.callbacks", sdkName() + ": the required callbacks of the definition types are the "
                + "record components every public static factory takes a callback for (ToolDefinition's handler), "
                + "filled with a do-nothing proxy when fields leave them out; a setter-built definition's callback "
                + "(CommandDefinition#setHandler) may stay null and is left out as given");
        // ToolSpec.run: a waiting handler's CompletableFuture completes after the other tool's.
        caps.put("tool.handler.waitFor", true);
        caps.put("handler.hold", true); // Holds
        // ToolSpec.run: the future a held tool handler returns reports its cancellation.
        java.lang.reflect.Method way = toolCancelWay();
        caps.put("handler.cancel.tool", way != null);
        notes.put("handler.cancel.tool", way != null
                ? types.toolHandler().getSimpleName() + "#" + way.getName() + " returns a "
                        + way.getReturnType().getSimpleName() + ": the SDK can cancel it when the runtime resolves the call"
                : sdkName() + ": " + types.toolHandler().getSimpleName()
                        + " returns no Future: a tool handler cannot learn that the runtime resolved its call");
        // Cancel: Future.get(timeout), then cancel(true), on every call below
        for (String call : List.of("createSession", "resumeSession", "send", "sendAndWait", "rpc")) {
            caps.put("call.cancel." + call, true);
        }
        caps.put("error.rpc.code", false);
        notes.put("error.rpc.code", Failure.NO_RPC_CODE);
        // Runtime-to-SDK handlers (Handlers): the hooks through the session config's setHooks;
        // every other method is named unhandled with the symbol it lacks.
        caps.put("rpc.handlers", true);
        // connect's requestHandler: no Java generation published here has a request handler; a
        // setRequestHandler that appears makes the capability audit red until it is mapped.
        caps.put("rpc.requestHandler", false);
        caps.put("handler.hooks", SessionOptions.setter(types.sessionConfig(), "setHooks") != null);
        // createSession's hookInputs: each hook's input class, read by Jackson introspection
        caps.put("handler.hooks.inputs", caps.get("handler.hooks"));
        // The handlers of the request events (Holds.heldRequest): a handler interface whose method
        // returns a Future the SDK could cancel when the runtime resolves the request.
        for (String[] k : REQUEST_HANDLERS) {
            String c = "handler.cancel." + k[0];
            String rway = requestCancelWay(k[1]);
            caps.put(c, rway != null);
            notes.put(c, rway != null ? rway + ": the SDK can cancel it when the runtime resolves the request"
                    : sdkName() + ": " + k[1] + " returns no Future: the " + k[0]
                            + " handler cannot learn that the runtime resolved its request");
        }
        caps.put("handler.cancel.command", false);
        notes.put("handler.cancel.command", "CommandHandler#handle returns a CompletableFuture, but the driver "
                + "registers no command handler to hold");
        notes.put("handler.permission", "PermissionHandler.APPROVE_ALL wrapped to report the PermissionRequest it "
                + "received, serialized with Jackson");
    }

    /**
     * Reports what the application's permission handler received ({@code permission.requested},
     * PROTOCOL.md "Requests from the runtime"); the adapter's handler then approves.
     */
    protected void reportPermission(String session, Object request) {
        ObjectNode args = Out.object();
        args.put("session", session);
        try {
            args.set("request", Out.JSON.valueToTree(request));
        } catch (IllegalArgumentException e) {
            args.putObject("request").put("unserializable", Failure.message(e));
        }
        out.event("permission.requested", args);
    }

    /** A user-input answer: PROTOCOL.md's first choice, or "ok" as free text when there are none. */
    protected record Answer(String answer, boolean wasFreeform) {
    }

    protected static Answer firstChoice(List<String> choices) {
        return choices != null && !choices.isEmpty() ? new Answer(choices.get(0), false) : new Answer("ok", true);
    }

    /**
     * Unsupported when a returnResult handler's result has a field the SDK's ToolResultObject
     * (or, inside binaryResultsForLlm, its ToolBinaryResult) cannot carry; checked when the tool
     * is built so the scenario is unsupported before anything is sent.
     */
    protected void checkResult(ToolSpec spec) {
        if ("returnResult".equals(spec.handler.action)) {
            checkFields(types.toolResult(), spec.handler.result, "tool " + spec.name);
        }
    }

    private void checkFields(Class<?> record, JsonNode node, String where) {
        node.fields().forEachRemaining(f -> {
            RecordComponent c = component(record, f.getKey());
            if (c == null) {
                throw new Failure.Unsupported(sdkName() + ": " + record.getSimpleName() + " has no " + f.getKey()
                        + " (" + where + ")");
            }
            Class<?> nested = recordOf(c.getGenericType());
            if (nested != null && f.getValue().isArray()) {
                f.getValue().forEach(item -> checkFields(nested, item, where + ", " + f.getKey()));
            } else if (nested != null) {
                checkFields(nested, f.getValue(), where + ", " + f.getKey());
            }
        });
    }

    /** The SDK's ToolResultObject for a returnResult handler: {@link #record} of its wire fields. */
    protected Object resultObject(JsonNode result) {
        return record(types.toolResult(), result);
    }

    /**
     * A record of the SDK's filled through its canonical constructor from the JSON fields of the
     * same names (absent ones null): nested records and lists of records are built the same way,
     * other values built into the component's declared type by name ({@link ByName}). Reflection, so one
     * method serves every generation's ToolResultObject and ToolBinaryResult.
     */
    static Object record(Class<?> type, JsonNode node) {
        RecordComponent[] components = type.getRecordComponents();
        Object[] args = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            JsonNode v = node.get(components[i].getName());
            args[i] = v == null || v.isNull() ? null : value(components[i].getGenericType(), v);
        }
        try {
            var ctor = type.getDeclaredConstructor(
                    Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new));
            return ctor.newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new Failure.DriverError("cannot build " + type.getName() + ": " + Failure.message(e));
        }
    }

    private static Object value(Type type, JsonNode v) {
        if (type instanceof Class<?> c && c.isRecord()) {
            return record(c, v);
        }
        Class<?> item = recordOf(type);
        if (item != null && v.isArray()) {
            List<Object> items = new ArrayList<>();
            v.forEach(x -> items.add(record(item, x)));
            return items;
        }
        try {
            return ByName.strict(type, v, Out.JSON);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new Failure.DriverError("cannot build " + type.getTypeName() + ": " + Failure.message(e));
        }
    }

    /** The record class of a record-typed component or of the items of a List-typed one, or null. */
    private static Class<?> recordOf(Type type) {
        if (type instanceof Class<?> c && c.isRecord()) {
            return c;
        }
        if (type instanceof ParameterizedType p && p.getRawType() == List.class
                && p.getActualTypeArguments()[0] instanceof Class<?> c && c.isRecord()) {
            return c;
        }
        return null;
    }

    private static RecordComponent component(Class<?> record, String name) {
        for (RecordComponent c : record.getRecordComponents()) {
            if (c.getName().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /** "Name record (a, b, c)", for notes. */
    private static String describe(Class<?> record) {
        return record.getSimpleName() + " record (" + Arrays.stream(record.getRecordComponents())
                .map(RecordComponent::getName).collect(Collectors.joining(", ")) + ")";
    }

    private String keep(String client, String session, S s) {
        sessions.put(session, s);
        owner.put(session, client);
        return sessionId(s);
    }

    @Override
    public ObjectNode send(String session, String prompt, boolean wait, Long timeoutMs) throws Exception {
        S s = session(session);
        ObjectNode result = Out.object();
        if (!wait) {
            String messageId = sendOnly(s, prompt);
            if (messageId != null) {
                result.put("messageId", messageId);
            }
            return result;
        }
        Reply reply = sendAndWait(s, prompt, timeoutMs);
        if (reply != null) {
            if (reply.messageId() != null) {
                result.put("messageId", reply.messageId());
            }
            if (reply.content() != null) {
                result.put("content", reply.content());
            }
        }
        return result;
    }

    @Override
    public void disconnect(String session) throws Exception {
        close(session(session));
        sessions.remove(session);
        owner.remove(session);
    }

    @Override
    public void stopClient(String client) throws Exception {
        C c = client(client);
        try {
            stop(c).get();
        } finally {
            clients.remove(client);
            owner.entrySet().removeIf(e -> {
                if (e.getValue().equals(client)) {
                    sessions.remove(e.getKey());
                    return true;
                }
                return false;
            });
        }
    }

    @Override
    public void closeAll() {
        for (C c : new ArrayList<>(clients.values())) {
            try {
                stop(c).get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                forceStop(c);
            }
        }
        clients.clear();
        sessions.clear();
        owner.clear();
    }

    /** Forwards an event the SDK delivered to the application as a session.event line. */
    protected void forward(String session, String type, Object event) {
        ObjectNode args = Out.object();
        args.put("session", session);
        args.put("type", type);
        JsonNode data;
        try {
            data = Out.JSON.valueToTree(event).get("data");
        } catch (IllegalArgumentException e) {
            data = null;
            System.err.println("driver: cannot encode " + type + " data: " + e);
        }
        args.set("data", data != null && !data.isNull() ? data : Out.object());
        out.event("session.event", args);
    }

    @Override
    public Object clientObject(String handle) {
        return client(handle);
    }

    @Override
    public Object sessionObject(String handle) {
        return session(handle);
    }

    protected C client(String handle) {
        C c = clients.get(handle);
        if (c == null) {
            throw new Failure.DriverError("unknown client handle: " + handle);
        }
        return c;
    }

    protected S session(String handle) {
        S s = sessions.get(handle);
        if (s == null) {
            throw new Failure.DriverError("unknown session handle: " + handle);
        }
        return s;
    }

    private void checkFreeSession(String handle) {
        if (sessions.containsKey(handle)) {
            throw new Failure.DriverError("session handle already in use: " + handle);
        }
    }
}
