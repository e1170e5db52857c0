package conformance.driver;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.copilot.AllowCopilotExperimental;
import com.github.copilot.CopilotClient;
import com.github.copilot.CopilotSession;
import com.github.copilot.generated.AssistantMessageEvent;
import com.github.copilot.generated.SessionEvent;
import com.github.copilot.generated.rpc.SessionHistoryClearContextParams;
import com.github.copilot.generated.rpc.SessionHistoryClearContextResult;
import com.github.copilot.rpc.CopilotClientOptions;
import com.github.copilot.rpc.ElicitationHandler;
import com.github.copilot.rpc.ElicitationResult;
import com.github.copilot.rpc.ElicitationResultAction;
import com.github.copilot.rpc.MessageOptions;
import com.github.copilot.rpc.PermissionHandler;
import com.github.copilot.rpc.PreToolUseHandler;
import com.github.copilot.rpc.ResumeSessionConfig;
import com.github.copilot.rpc.SessionConfig;
import com.github.copilot.rpc.SessionHooks;
import com.github.copilot.rpc.ToolBinaryResult;
import com.github.copilot.rpc.ToolDefer;
import com.github.copilot.rpc.ToolDefinition;
import com.github.copilot.rpc.ToolHandler;
import com.github.copilot.rpc.ToolResultObject;
import com.github.copilot.rpc.UserInputHandler;
import com.github.copilot.rpc.UserInputResponse;

/**
 * Adapter for the 1.x API of com.github:copilot-sdk-java (packages com.github.copilot.*), built
 * from a github/copilot-sdk checkout (java/). Tools are made with ToolDefinition.create(...) and
 * its copy-with methods (overridesBuiltInTool, skipPermission, defer, metadata, isTerminal),
 * applied in the spec's optionOrder; clearContext is the generated
 * session.getRpc().history.clearContext. The copy-with methods and the generated RPC are
 * {@code @CopilotExperimental}, hence the opt-in below.
 */
@AllowCopilotExperimental
final class Sdk implements SdkAdapter {
    private static final String ARTIFACT = "com.github:copilot-sdk-java";

    private final Out out;
    private final Map<String, CopilotClient> clients = new ConcurrentHashMap<>();
    private final Map<String, CopilotSession> sessions = new ConcurrentHashMap<>();
    private final Map<String, String> owner = new ConcurrentHashMap<>(); // session handle -> client handle
    private final String version;

    Sdk(Out out) {
        this.out = out;
        this.version = installedVersion();
    }

    /** The version in the SDK jar's own Maven descriptor (pom.properties). */
    private static String installedVersion() {
        Properties p = new Properties();
        try (InputStream in = CopilotClient.class
                .getResourceAsStream("/META-INF/maven/com.github/copilot-sdk-java/pom.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // fall through to the manifest
        }
        String v = p.getProperty("version");
        if (v == null) {
            v = CopilotClient.class.getPackage().getImplementationVersion();
        }
        return v != null ? v : "unknown";
    }

    private String sdkName() {
        return ARTIFACT + " " + version;
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public Map<String, Boolean> capabilities() {
        Map<String, Boolean> c = new LinkedHashMap<>();
        c.put("transport.tcp", true);
        c.put("transport.stdio", true);
        c.put("session.resume", true);
        c.put("tool.isTerminal", true);
        c.put("tool.isTerminal.explicitFalse", true);
        c.put("tool.overridesBuiltInTool", true);
        c.put("tool.skipPermission", true);
        c.put("tool.defer", true);
        c.put("tool.metadata", true);
        c.put("session.setTools", false);
        c.put("session.clearContext", true);
        c.put("events", true);
        // Tool results: the handler's CompletableFuture<Object> completes with a ToolResultObject
        // (passed through) or any value (serialized by the SDK's Jackson ObjectMapper).
        c.put("tool.result.value", true);
        c.put("tool.result.object", true);
        c.put("tool.result.binary", hasComponent(ToolResultObject.class, "binaryResultsForLlm"));
        c.put("tool.result.sessionLog", hasComponent(ToolResultObject.class, "sessionLog"));
        c.put("tool.result.telemetry", hasComponent(ToolResultObject.class, "toolTelemetry"));
        SessionOptions.declare(SessionConfig.class, ResumeSessionConfig.class, sdkName(), c, new LinkedHashMap<>());
        ConnectOptions.declare(CopilotClientOptions.class, sdkName(), c, new LinkedHashMap<>());
        c.put("handler.permission", true);
        return c;
    }

    @Override
    public Map<String, String> notes() {
        Map<String, String> n = new LinkedHashMap<>();
        n.put("tool.isTerminal", "ToolDefinition.isTerminal(boolean), a copy-with method");
        n.put("tool.isTerminal.explicitFalse", "ToolDefinition's isTerminal component is a nullable Boolean: "
                + "never calling isTerminal(...) leaves it null (left out of the wire definition), "
                + "isTerminal(false) sends false");
        n.put("tool.defer", "ToolDefinition.defer(ToolDefer.AUTO | ToolDefer.NEVER)");
        n.put("tool.metadata", "ToolDefinition.metadata(Map)");
        n.put("session.setTools", sdkName() + " has no high-level tool replacement: CopilotSession has no "
                + "setTools (only the generated session.getRpc().tools.set, which does not swap handlers)");
        n.put("session.clearContext", "the generated session.getRpc().history.clearContext("
                + "SessionHistoryClearContextParams)");
        n.put("transport.tcp", "CopilotClientOptions.setCliUrl(\"host:port\")");
        n.put("transport.stdio", "CopilotClientOptions.setCliPath(path); the SDK spawns it with --server "
                + "--no-auto-update --log-level info --stdio (setEnvironment replaces the child's whole "
                + "environment, so the driver passes its own environment plus env)");
        n.put("tool.overridesBuiltInTool", "a nullable Boolean record component: unset, true and false are "
                + "distinct");
        n.put("tool.skipPermission", "a nullable Boolean record component: unset, true and false are distinct");
        n.put("events", "SessionConfig.setOnEvent; event types this SDK version does not know are delivered "
                + "as type \"unknown\"");
        SessionOptions.declare(SessionConfig.class, ResumeSessionConfig.class, sdkName(), new LinkedHashMap<>(), n);
        ConnectOptions.declare(CopilotClientOptions.class, sdkName(), new LinkedHashMap<>(), n);
        n.put("handler.permission", "PermissionHandler.APPROVE_ALL wrapped to report the PermissionRequest it "
                + "received, serialized with Jackson");
        n.put("tool.result.object", sdkName() + ": ToolResultObject record; ToolBinaryResult is a record of (data, "
                + "mimeType, type, description) with no metadata");
        return n;
    }

    @Override
    public void connect(String client, String address, String cliPath, Map<String, String> env, JsonNode connectOptions)
            throws Exception {
        if (clients.containsKey(client)) {
            throw new Failure.DriverError("client handle already connected: " + client);
        }
        CopilotClientOptions options = new CopilotClientOptions();
        if (address != null) {
            options.setCliUrl(address);
        } else {
            Map<String, String> childEnv = new HashMap<>(System.getenv());
            childEnv.remove("COPILOT_SDK_DEFAULT_CONNECTION");
            childEnv.putAll(env);
            options.setCliPath(cliPath).setUseStdio(true).setEnvironment(childEnv);
        }
        ConnectOptions.apply(options, connectOptions, address != null, sdkName());
        CopilotClient c = new CopilotClient(options);
        try {
            c.start().get();
        } catch (Exception e) {
            c.forceStop();
            throw e;
        }
        clients.put(client, c);
    }

    @Override
    public String createSession(String client, String session, List<ToolSpec> tools,
            com.fasterxml.jackson.databind.JsonNode options) throws Exception {
        CopilotClient c = client(client);
        checkFreeSession(session);
        AtomicReference<CopilotSession> slot = new AtomicReference<>();
        SessionConfig config = new SessionConfig()
                .setOnPermissionRequest(reportingApproveAll(session))
                .setOnEvent(forward(session))
                .setTools(definitions(session, tools, slot));
        SessionOptions.apply(config, options, false, sdkName(), Sdk::noAnswerHandler);
        CopilotSession s = c.createSession(config).get();
        slot.set(s);
        sessions.put(session, s);
        owner.put(session, client);
        return s.getSessionId();
    }

    @Override
    public String resumeSession(String client, String session, String sessionId, List<ToolSpec> tools,
            com.fasterxml.jackson.databind.JsonNode options) throws Exception {
        CopilotClient c = client(client);
        checkFreeSession(session);
        AtomicReference<CopilotSession> slot = new AtomicReference<>();
        ResumeSessionConfig config = new ResumeSessionConfig()
                .setOnPermissionRequest(reportingApproveAll(session))
                .setOnEvent(forward(session))
                .setTools(definitions(session, tools, slot));
        SessionOptions.apply(config, options, true, sdkName(), Sdk::noAnswerHandler);
        CopilotSession s = c.resumeSession(sessionId, config).get();
        slot.set(s);
        sessions.put(session, s);
        owner.put(session, client);
        return s.getSessionId();
    }

    @Override
    public void setTools(String session, List<ToolSpec> tools) {
        throw new Failure.Unsupported(notes().get("session.setTools"));
    }

    @Override
    public long clearContext(String session, String prompt) throws Exception {
        return clear(session(session), prompt);
    }

    /** The SDK's clearContext: the generated session.history.clearContext RPC. */
    private static long clear(CopilotSession s, String prompt) throws Exception {
        SessionHistoryClearContextResult r = s.getRpc().history
                .clearContext(new SessionHistoryClearContextParams(s.getSessionId(), prompt)).get();
        if (r == null || r.messagesCleared() == null) {
            throw new IllegalStateException("clearContext returned no messagesCleared");
        }
        return r.messagesCleared();
    }

    @Override
    public ObjectNode send(String session, String prompt, boolean wait, Long timeoutMs) throws Exception {
        CopilotSession s = session(session);
        ObjectNode result = Out.object();
        if (!wait) {
            String messageId = s.send(prompt).get();
            if (messageId != null) {
                result.put("messageId", messageId);
            }
            return result;
        }
        MessageOptions options = new MessageOptions().setPrompt(prompt);
        CompletableFuture<AssistantMessageEvent> reply = timeoutMs != null
                ? s.sendAndWait(options, timeoutMs)
                : s.sendAndWait(options);
        AssistantMessageEvent message = reply.get();
        if (message != null && message.getData() != null) {
            if (message.getData().messageId() != null) {
                result.put("messageId", message.getData().messageId());
            }
            if (message.getData().content() != null) {
                result.put("content", message.getData().content());
            }
        }
        return result;
    }

    @Override
    public void disconnect(String session) {
        CopilotSession s = session(session);
        s.close(); // sends session.destroy
        sessions.remove(session);
        owner.remove(session);
    }

    @Override
    public void stopClient(String client) throws Exception {
        CopilotClient c = client(client);
        try {
            c.stop().get();
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
        for (CopilotClient c : new ArrayList<>(clients.values())) {
            try {
                c.stop().get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                c.forceStop();
            }
        }
        clients.clear();
        sessions.clear();
        owner.clear();
    }

    /** PROTOCOL.md: the first choice, or "ok" as free text when there are no choices. */
    private static com.github.copilot.rpc.UserInputResponse firstChoice(List<String> choices) {
        return choices != null && !choices.isEmpty()
                ? new com.github.copilot.rpc.UserInputResponse().setAnswer(choices.get(0)).setWasFreeform(false)
                : new com.github.copilot.rpc.UserInputResponse().setAnswer("ok").setWasFreeform(true);
    }

    /**
     * The SDK's approve-all permission handler, wrapped to report what the application's handler
     * received ({@code permission.requested}, PROTOCOL.md "Requests from the runtime").
     */
    private PermissionHandler reportingApproveAll(String session) {
        return (request, invocation) -> {
            ObjectNode args = Out.object();
            args.put("session", session);
            try {
                args.set("request", Out.JSON.valueToTree(request));
            } catch (IllegalArgumentException e) {
                args.putObject("request").put("unserializable", Failure.message(e));
            }
            out.event("permission.requested", args);
            return PermissionHandler.APPROVE_ALL.handle(request, invocation);
        };
    }

    /**
     * The handler behind a handler option, with the fixed behaviour of PROTOCOL.md: the first
     * choice, a cancel, a pre-tool-use hook with no output.
     */
    private static Object noAnswerHandler(String option) {
        return switch (option) {
            case "userInputHandler" -> (UserInputHandler) (request, invocation) -> CompletableFuture.completedFuture(
                    firstChoice(request.getChoices()));
            case "elicitationHandler" -> (ElicitationHandler) context -> CompletableFuture
                    .completedFuture(new ElicitationResult().setAction(ElicitationResultAction.CANCEL));
            case "hooks" -> new SessionHooks()
                    .setOnPreToolUse((PreToolUseHandler) (input, invocation) -> CompletableFuture.completedFuture(null));
            default -> throw new Failure.DriverError("no handler for session option " + option);
        };
    }

    private static boolean hasComponent(Class<?> record, String name) {
        for (var component : record.getRecordComponents()) {
            if (component.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** The SDK's ToolResultObject filled with the wire fields given, through its canonical constructor. */
    private ToolResultObject resultObject(JsonNode r) {
        List<ToolBinaryResult> binaries = null;
        if (r.has("binaryResultsForLlm")) {
            binaries = new ArrayList<>();
            for (JsonNode b : r.get("binaryResultsForLlm")) {
                binaries.add(new ToolBinaryResult(text(b, "data"), text(b, "mimeType"), text(b, "type"),
                        text(b, "description")));
            }
        }
        Map<String, Object> telemetry = r.has("toolTelemetry")
                ? Out.JSON.convertValue(r.get("toolTelemetry"),
                        new com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>>() {
                        })
                : null;
        return new ToolResultObject(text(r, "resultType"), text(r, "textResultForLlm"), binaries, text(r, "error"),
                text(r, "sessionLog"), telemetry);
    }

    /** Unsupported when the result has a field ToolResultObject / ToolBinaryResult cannot carry. */
    private void checkResultFields(ToolSpec spec) {
        JsonNode r = spec.handler.result;
        List<String> fields = List.of("textResultForLlm", "resultType", "binaryResultsForLlm", "error",
                "sessionLog", "toolTelemetry");
        r.fieldNames().forEachRemaining(f -> {
            if (!fields.contains(f) || !hasComponent(ToolResultObject.class, f)) {
                throw new Failure.Unsupported(sdkName() + ": ToolResultObject has no " + f + " (tool " + spec.name
                        + ")");
            }
        });
        for (JsonNode b : r.path("binaryResultsForLlm")) {
            b.fieldNames().forEachRemaining(f -> {
                if (!hasComponent(ToolBinaryResult.class, f)) {
                    throw new Failure.Unsupported(sdkName() + ": ToolBinaryResult has no " + f + " (tool "
                            + spec.name + ", binaryResultsForLlm)");
                }
            });
        }
    }

    private static String text(JsonNode node, String key) {
        JsonNode v = node.get(key);
        return v == null || v.isNull() ? null : v.asText();
    }

    /** The SDK tools for a session, built from the protocol specs. */
    private List<ToolDefinition> definitions(String session, List<ToolSpec> specs,
            AtomicReference<CopilotSession> slot) {
        List<ToolDefinition> out = new ArrayList<>();
        for (ToolSpec spec : specs) {
            out.add(definition(session, spec, slot));
        }
        return out;
    }

    private ToolDefinition definition(String session, ToolSpec spec, AtomicReference<CopilotSession> slot) {
        if (spec.style != null) {
            throw new Failure.Unsupported("the java driver builds tools with ToolDefinition.create(...) and its "
                    + "copy-with methods only; it has no \"" + spec.style + "\" style (a @CopilotTool method's "
                    + "options are compile-time constants, so one cannot be made from a protocol Tool at run time)");
        }
        if ("returnResult".equals(spec.handler.action)) {
            checkResultFields(spec);
        }
        ToolHandler handler = invocation -> CompletableFuture.completedFuture(
                spec.invoke(this.out, session, invocation.getArguments(), prompt -> {
                    CopilotSession s = slot.get();
                    if (s == null) {
                        throw new IllegalStateException("tool called before createSession returned");
                    }
                    return clear(s, prompt);
                }, this::resultObject));
        // description and parameters have no copy-with method: they go into the base definition.
        ToolDefinition tool = ToolDefinition.create(spec.name, spec.description, spec.parameters, handler);
        for (String option : spec.optionsInOrder()) {
            tool = switch (option) {
                case "overridesBuiltInTool" -> tool.overridesBuiltInTool(spec.overridesBuiltInTool);
                case "skipPermission" -> tool.skipPermission(spec.skipPermission);
                case "defer" -> tool.defer(defer(spec.defer));
                case "metadata" -> tool.metadata(spec.metadata);
                case "isTerminal" -> tool.isTerminal(spec.isTerminal);
                default -> tool; // description, parameters
            };
        }
        return tool;
    }

    private static ToolDefer defer(String value) {
        return switch (value) {
            case "auto" -> ToolDefer.AUTO;
            case "never" -> ToolDefer.NEVER;
            default -> throw new Failure.DriverError("unknown defer value: " + value);
        };
    }

    /** Forwards every event the SDK delivers to the application as a session.event line. */
    private Consumer<SessionEvent> forward(String session) {
        return event -> {
            ObjectNode args = Out.object();
            args.put("session", session);
            args.put("type", event.getType());
            JsonNode data;
            try {
                data = Out.JSON.valueToTree(event).get("data");
            } catch (IllegalArgumentException e) {
                data = null;
                System.err.println("driver: cannot encode " + event.getType() + " data: " + e);
            }
            args.set("data", data != null && !data.isNull() ? data : Out.object());
            out.event("session.event", args);
        };
    }

    private CopilotClient client(String handle) {
        CopilotClient c = clients.get(handle);
        if (c == null) {
            throw new Failure.DriverError("unknown client handle: " + handle);
        }
        return c;
    }

    private CopilotSession session(String handle) {
        CopilotSession s = sessions.get(handle);
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
