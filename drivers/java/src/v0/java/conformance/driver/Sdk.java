package conformance.driver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.copilot.sdk.CopilotClient;
import com.github.copilot.sdk.CopilotSession;
import com.github.copilot.sdk.generated.AssistantMessageEvent;
import com.github.copilot.sdk.generated.SessionEvent;
import com.github.copilot.sdk.generated.rpc.SessionHistoryApi;
import com.github.copilot.sdk.generated.rpc.SessionToolsApi;
import com.github.copilot.sdk.json.CopilotClientOptions;
import com.github.copilot.sdk.json.ElicitationHandler;
import com.github.copilot.sdk.json.ElicitationResult;
import com.github.copilot.sdk.json.ElicitationResultAction;
import com.github.copilot.sdk.json.MessageOptions;
import com.github.copilot.sdk.json.PermissionHandler;
import com.github.copilot.sdk.json.PreToolUseHandler;
import com.github.copilot.sdk.json.ResumeSessionConfig;
import com.github.copilot.sdk.json.SessionConfig;
import com.github.copilot.sdk.json.SessionHooks;
import com.github.copilot.sdk.json.ToolBinaryResult;
import com.github.copilot.sdk.json.ToolDefinition;
import com.github.copilot.sdk.json.ToolHandler;
import com.github.copilot.sdk.json.ToolResultObject;
import com.github.copilot.sdk.json.UserInputHandler;
import com.github.copilot.sdk.json.UserInputResponse;

/**
 * Adapter for the 0.x API of com.github:copilot-sdk-java (packages com.github.copilot.sdk.*), the
 * line pinned by default (the newest reachable when pinned; Maven Central also publishes 1.x). Its ToolDefinition is a plain record (name, description, parameters,
 * handler, overridesBuiltInTool, skipPermission) with no isTerminal, defer or metadata and no
 * copy-with methods; sessions have no clearContext and no setTools.
 */
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
        return c.createSession(withToken(withOptions(new SessionConfig()
                .setOnPermissionRequest(reportingApproveAll(session))
                .setOnEvent(forward(session))
                .setTools(definitions(session, tools)), options, false), gitHubToken)).get();
    }

    @Override
    protected CopilotSession resume(CopilotClient c, String session, String sessionId, List<ToolSpec> tools,
            JsonNode options) throws Exception {
        return c.resumeSession(sessionId, withOptions(new ResumeSessionConfig()
                .setOnPermissionRequest(reportingApproveAll(session))
                .setOnEvent(forward(session))
                .setTools(definitions(session, tools)), options, true)).get();
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
        c.put("tool.isTerminal", false);
        c.put("tool.isTerminal.explicitFalse", false);
        c.put("tool.overridesBuiltInTool", true);
        c.put("tool.skipPermission", true);
        c.put("tool.defer", false);
        c.put("tool.metadata", false);
        c.put("session.setTools", false);
        c.put("session.clearContext", false);
        c.put("events", true);
        declareShared(c, new LinkedHashMap<>());
        return c;
    }

    @Override
    protected Map<String, String> generationSymbols() {
        String def = ToolDefinition.class.getName() + "#";
        return Map.of(
                "tool.isTerminal", def + "isTerminal",
                "tool.defer", def + "defer",
                "tool.metadata", def + "metadata",
                "session.setTools", CopilotSession.class.getName() + "#setTools",
                "session.clearContext", SessionHistoryApi.class.getName() + "#clearContext",
                "session.rpc.tools.set", SessionToolsApi.class.getName() + "#set");
    }

    @Override
    public Map<String, String> notes() {
        Map<String, String> n = new LinkedHashMap<>();
        String def = sdkName() + ": com.github.copilot.sdk.json.ToolDefinition is a record of (name, description, "
                + "parameters, handler, overridesBuiltInTool, skipPermission)";
        n.put("tool.isTerminal", def + "; it has no isTerminal");
        n.put("tool.isTerminal.explicitFalse", def + "; it has no isTerminal");
        n.put("tool.defer", def + "; it has no defer");
        n.put("tool.metadata", def + "; it has no metadata");
        n.put("session.setTools", sdkName() + " has no high-level tool replacement (CopilotSession has no "
                + "setTools, and the generated session.getRpc().tools has only handlePendingToolCall)");
        n.put("session.rpc.tools.set", sdkName() + ": the generated session.getRpc().tools has only "
                + "handlePendingToolCall");
        n.put("session.clearContext", sdkName() + " has no clearContext (the generated session.getRpc().history "
                + "has only compact and truncate)");
        n.put("transport.tcp", "CopilotClientOptions.setCliUrl(\"host:port\")");
        n.put("transport.stdio", "CopilotClientOptions.setCliPath(path); the SDK spawns it with --server "
                + "--no-auto-update --log-level info --stdio (setEnvironment replaces the child's whole "
                + "environment, so the driver passes its own environment plus env)");
        n.put("tool.overridesBuiltInTool", "a nullable Boolean record component: unset, true and false are "
                + "distinct");
        n.put("tool.skipPermission", "a nullable Boolean record component: unset, true and false are distinct");
        n.put("events", "SessionConfig.setOnEvent; event types this SDK version does not know are delivered "
                + "as type \"unknown\" without data");
        declareShared(new LinkedHashMap<>(), n);
        n.put("session.option.streaming", sdkName() + ": SessionConfig.setStreaming(boolean) is a primitive, and "
                + "SessionRequestBuilder sends streaming only when true (isStreaming() ? true : null)");
        return n;
    }

    @Override
    public void setTools(String session, List<ToolSpec> tools) {
        throw new Failure.Unsupported(notes().get("session.setTools"));
    }

    @Override
    public long clearContext(String session, String prompt) {
        throw new Failure.Unsupported(notes().get("session.clearContext"));
    }

    /** The SDK tools for a session, built from the protocol specs. */
    private List<ToolDefinition> definitions(String session, List<ToolSpec> specs) {
        List<ToolDefinition> out = new ArrayList<>();
        for (ToolSpec spec : specs) {
            out.add(definition(session, spec));
        }
        return out;
    }

    private ToolDefinition definition(String session, ToolSpec spec) {
        if (spec.style != null) {
            throw new Failure.Unsupported(sdkName() + " has no @CopilotTool annotation (tool style \""
                    + spec.style + "\")");
        }
        for (String option : List.of("isTerminal", "defer", "metadata")) {
            if (spec.has(option)) {
                throw new Failure.Unsupported(notes().get("tool." + option) + " (tool " + spec.name + ")");
            }
        }
        if ("clearContext".equals(spec.handler.action)) {
            throw new Failure.Unsupported(notes().get("session.clearContext") + " (handler of tool " + spec.name
                    + ")");
        }
        checkResult(spec);
        ToolHandler handler = invocation -> spec.run(this.out, session, invocation.getArguments(), prompt -> {
            throw new Failure.Unsupported(notes().get("session.clearContext"));
        }, this::resultObject);
        // The record is the only way to build a tool in this version: unset options stay null,
        // which the SDK leaves out of the wire definition.
        return new ToolDefinition(spec.name, spec.description, spec.parameters, handler, spec.overridesBuiltInTool,
                spec.skipPermission);
    }
}
