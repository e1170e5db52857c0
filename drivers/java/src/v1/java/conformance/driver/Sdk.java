package conformance.driver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
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
final class Sdk extends SdkBase<CopilotClient, CopilotSession> {
    Sdk(Out out) {
        super(out, CopilotClient.class, new Types(SessionConfig.class, ResumeSessionConfig.class,
                CopilotClientOptions.class, ToolResultObject.class, ToolBinaryResult.class));
    }

    @Override
    protected CopilotClient start(String address, String cliPath, Map<String, String> env, JsonNode connectOptions)
            throws Exception {
        CopilotClientOptions options = new CopilotClientOptions();
        if (address != null) {
            options.setCliUrl(address);
        } else {
            options.setCliPath(cliPath).setUseStdio(true).setEnvironment(childEnv(env));
        }
        applyConnectOptions(options, connectOptions, address != null);
        CopilotClient c = new CopilotClient(options);
        try {
            c.start().get();
        } catch (Exception e) {
            c.forceStop();
            throw e;
        }
        return c;
    }

    @Override
    protected CopilotSession create(CopilotClient c, String session, List<ToolSpec> tools, JsonNode options,
            String gitHubToken) throws Exception {
        AtomicReference<CopilotSession> slot = new AtomicReference<>();
        CopilotSession s = c.createSession(withToken(withOptions(new SessionConfig()
                .setOnPermissionRequest(reportingApproveAll(session))
                .setOnEvent(forward(session))
                .setTools(definitions(session, tools, slot)), options, false), gitHubToken)).get();
        slot.set(s);
        return s;
    }

    @Override
    protected CopilotSession resume(CopilotClient c, String session, String sessionId, List<ToolSpec> tools,
            JsonNode options) throws Exception {
        AtomicReference<CopilotSession> slot = new AtomicReference<>();
        CopilotSession s = c.resumeSession(sessionId, withOptions(new ResumeSessionConfig()
                .setOnPermissionRequest(reportingApproveAll(session))
                .setOnEvent(forward(session))
                .setTools(definitions(session, tools, slot)), options, true)).get();
        slot.set(s);
        return s;
    }

    @Override
    protected String sessionId(CopilotSession s) {
        return s.getSessionId();
    }

    @Override
    protected String sendOnly(CopilotSession s, String prompt) throws Exception {
        return s.send(prompt).get();
    }

    @Override
    protected Reply sendAndWait(CopilotSession s, String prompt, Long timeoutMs) throws Exception {
        MessageOptions options = new MessageOptions().setPrompt(prompt);
        AssistantMessageEvent message = (timeoutMs != null ? s.sendAndWait(options, timeoutMs)
                : s.sendAndWait(options)).get();
        if (message == null || message.getData() == null) {
            return null;
        }
        return new Reply(message.getData().messageId(), message.getData().content());
    }

    @Override
    protected void close(CopilotSession s) {
        s.close(); // sends session.destroy
    }

    @Override
    protected Future<?> stop(CopilotClient c) {
        return c.stop();
    }

    @Override
    protected void forceStop(CopilotClient c) {
        c.forceStop();
    }

    /** The SDK's approve-all permission handler, wrapped to report the request it received. */
    private PermissionHandler reportingApproveAll(String session) {
        return (request, invocation) -> {
            reportPermission(session, request);
            return PermissionHandler.APPROVE_ALL.handle(request, invocation);
        };
    }

    @Override
    protected Object handler(String option) {
        return switch (option) {
            case "userInputHandler" -> (UserInputHandler) (request, invocation) -> {
                Answer a = firstChoice(request.getChoices());
                return CompletableFuture.completedFuture(
                        new UserInputResponse().setAnswer(a.answer()).setWasFreeform(a.wasFreeform()));
            };
            case "elicitationHandler" -> (ElicitationHandler) context -> CompletableFuture
                    .completedFuture(new ElicitationResult().setAction(ElicitationResultAction.CANCEL));
            case "hooks" -> new SessionHooks()
                    .setOnPreToolUse((PreToolUseHandler) (input, invocation) -> CompletableFuture.completedFuture(null));
            default -> throw new Failure.DriverError("no handler for session option " + option);
        };
    }

    /** Forwards every event the SDK delivers to the application as a session.event line. */
    private Consumer<SessionEvent> forward(String session) {
        return event -> forward(session, event.getType(), event);
    }

    @Override
    public Map<String, Boolean> capabilities() {
        Map<String, Boolean> c = new LinkedHashMap<>();
        c.put("transport.tcp", true);
        c.put("transport.stdio", true);
        c.put("session.resume", true);
        // isTerminal came with 1.0.10-SNAPSHOT's #2129 (isTerminal(boolean)), later isTerminal(Boolean):
        // looked up, so the adapter builds against a 1.x from before it too.
        c.put("tool.isTerminal", IS_TERMINAL != null);
        c.put("tool.isTerminal.explicitFalse", IS_TERMINAL != null);
        c.put("tool.overridesBuiltInTool", true);
        c.put("tool.skipPermission", true);
        c.put("tool.defer", true);
        c.put("tool.metadata", true);
        c.put("session.setTools", false);
        c.put("session.clearContext", true);
        c.put("events", true);
        declareShared(c, new LinkedHashMap<>());
        return c;
    }

    @Override
    protected Map<String, String> generationSymbols() {
        // The generated session.getRpc().tools.set exists in this generation, but the driver has
        // no setToolsRpc for it yet: the audit names that false unsupported when it runs a 1.x.
        Map<String, String> m = new LinkedHashMap<>();
        m.put("session.setTools", CopilotSession.class.getName() + "#setTools");
        m.put("session.rpc.tools.set", "com.github.copilot.generated.rpc.SessionToolsApi#set");
        m.put("tool.isTerminal", ToolDefinition.class.getName() + "#isTerminal");
        m.put("tool.isTerminal.explicitFalse", ToolDefinition.class.getName() + "#isTerminal");
        return m;
    }

    @Override
    public Map<String, String> notes() {
        Map<String, String> n = new LinkedHashMap<>();
        if (IS_TERMINAL == null) {
            n.put("tool.isTerminal", sdkName() + ": ToolDefinition has no isTerminal copy-with method");
            n.put("tool.isTerminal.explicitFalse", sdkName() + ": ToolDefinition has no isTerminal");
        } else {
            n.put("tool.isTerminal", "ToolDefinition.isTerminal(" + IS_TERMINAL.getParameterTypes()[0].getSimpleName()
                    + "), a copy-with method");
            n.put("tool.isTerminal.explicitFalse", "ToolDefinition's isTerminal component is a nullable Boolean: "
                    + "never calling isTerminal(...) leaves it null (left out of the wire definition), "
                    + "isTerminal(false) sends false");
        }
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
        declareShared(new LinkedHashMap<>(), n);
        return n;
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
        checkResult(spec);
        ToolHandler handler = invocation -> spec.run(this.out, session, invocation.getArguments(), prompt -> {
            CopilotSession s = slot.get();
            if (s == null) {
                throw new IllegalStateException("tool called before createSession returned");
            }
            return clear(s, prompt);
        }, this::resultObject);
        // description and parameters have no copy-with method: they go into the base definition.
        ToolDefinition tool = ToolDefinition.create(spec.name, spec.description, spec.parameters, handler);
        for (String option : spec.optionsInOrder()) {
            tool = switch (option) {
                case "overridesBuiltInTool" -> tool.overridesBuiltInTool(spec.overridesBuiltInTool);
                case "skipPermission" -> tool.skipPermission(spec.skipPermission);
                case "defer" -> tool.defer(defer(spec.defer));
                case "metadata" -> tool.metadata(spec.metadata);
                case "isTerminal" -> isTerminal(tool, spec.isTerminal);
                default -> tool; // description, parameters
            };
        }
        return tool;
    }

    /** ToolDefinition's isTerminal copy-with method, (Boolean) or (boolean), or null before it. */
    private static final java.lang.reflect.Method IS_TERMINAL = isTerminalMethod();

    private static java.lang.reflect.Method isTerminalMethod() {
        for (Class<?> p : new Class<?>[] {Boolean.class, boolean.class}) {
            try {
                return ToolDefinition.class.getMethod("isTerminal", p);
            } catch (NoSuchMethodException e) {
                // the other one, or none
            }
        }
        return null;
    }

    private ToolDefinition isTerminal(ToolDefinition tool, Boolean value) {
        if (IS_TERMINAL == null) {
            throw new Failure.Unsupported(sdkName() + ": ToolDefinition has no isTerminal");
        }
        try {
            return (ToolDefinition) IS_TERMINAL.invoke(tool, value);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ToolDefer defer(String value) {
        return switch (value) {
            case "auto" -> ToolDefer.AUTO;
            case "never" -> ToolDefer.NEVER;
            default -> throw new Failure.DriverError("unknown defer value: " + value);
        };
    }
}
