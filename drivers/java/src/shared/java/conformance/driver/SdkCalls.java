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
import ${copilot.sdk.package}.CopilotClient;
import ${copilot.sdk.package}.CopilotSession;
import ${copilot.sdk.package}.generated.AssistantMessageEvent;
import ${copilot.sdk.package}.generated.SessionEvent;
import ${copilot.sdk.types}.CopilotClientOptions;
import ${copilot.sdk.types}.ElicitationHandler;
import ${copilot.sdk.types}.ElicitationResult;
import ${copilot.sdk.types}.ElicitationResultAction;
import ${copilot.sdk.types}.MessageOptions;
import ${copilot.sdk.types}.PermissionHandler;
import ${copilot.sdk.types}.PreToolUseHandler;
import ${copilot.sdk.types}.ResumeSessionConfig;
import ${copilot.sdk.types}.SessionConfig;
import ${copilot.sdk.types}.SessionHooks;
import ${copilot.sdk.types}.ToolBinaryResult;
import ${copilot.sdk.types}.ToolDefinition;
import ${copilot.sdk.types}.ToolHandler;
import ${copilot.sdk.types}.ToolResultObject;
import ${copilot.sdk.types}.UserInputHandler;
import ${copilot.sdk.types}.UserInputResponse;

/**
 * The SDK calls both API generations make the same way, written once: the generations name the
 * same classes in other packages (0.x com.github.copilot.sdk / .sdk.json, 1.x com.github.copilot
 * / .rpc), so Maven writes this file with the packages of the generation it builds (the pom's
 * copilot.sdk.package and copilot.sdk.types) into target/generated-sources. An adapter
 * (src/&lt;api&gt;/java/conformance/driver/Sdk.java) adds what differs: how a tool is built, the
 * capabilities and notes, clearContext.
 */
abstract class SdkCalls extends SdkBase<CopilotClient, CopilotSession> {
    SdkCalls(Out out) {
        super(out, CopilotClient.class, new Types(SessionConfig.class, ResumeSessionConfig.class,
                CopilotClientOptions.class, ToolResultObject.class, ToolBinaryResult.class, ToolHandler.class));
    }

    /**
     * The SDK tool for a protocol spec; {@code slot} holds the session once createSession or
     * resumeSession returned (a handler that calls the session reads it from there).
     */
    protected abstract ToolDefinition definition(String session, ToolSpec spec,
            AtomicReference<CopilotSession> slot);

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
        CopilotSession s = awaitCancellable(c.createSession(withToken(withOptions(new SessionConfig()
                .setOnPermissionRequest(reportingApproveAll(session))
                .setOnEvent(forward(session))
                .setTools(definitions(session, tools, slot)), options, false, session), gitHubToken)));
        slot.set(s);
        return s;
    }

    @Override
    protected CopilotSession resume(CopilotClient c, String session, String sessionId, List<ToolSpec> tools,
            JsonNode options) throws Exception {
        AtomicReference<CopilotSession> slot = new AtomicReference<>();
        CopilotSession s = awaitCancellable(c.resumeSession(sessionId, withOptions(new ResumeSessionConfig()
                .setOnPermissionRequest(reportingApproveAll(session))
                .setOnEvent(forward(session))
                .setTools(definitions(session, tools, slot)), options, true, session)));
        slot.set(s);
        return s;
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

    @Override
    protected String sessionId(CopilotSession s) {
        return s.getSessionId();
    }

    @Override
    protected String sendOnly(CopilotSession s, String prompt) throws Exception {
        return awaitCancellable(s.send(prompt));
    }

    @Override
    protected Reply sendAndWait(CopilotSession s, String prompt, Long timeoutMs) throws Exception {
        MessageOptions options = new MessageOptions().setPrompt(prompt);
        AssistantMessageEvent message = awaitCancellable(timeoutMs != null ? s.sendAndWait(options, timeoutMs)
                : s.sendAndWait(options));
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
            return Holds.heldRequest(out, session, "permission.requested",
                    () -> PermissionHandler.APPROVE_ALL.handle(request, invocation));
        };
    }

    @Override
    protected Object handler(String option, String session) {
        return switch (option) {
            case "userInputHandler" -> (UserInputHandler) (request, invocation) -> {
                Answer a = firstChoice(request.getChoices());
                return CompletableFuture.completedFuture(
                        new UserInputResponse().setAnswer(a.answer()).setWasFreeform(a.wasFreeform()));
            };
            case "elicitationHandler" -> (ElicitationHandler) context -> Holds.heldRequest(out, session,
                    "elicitation.requested", () -> CompletableFuture
                            .completedFuture(new ElicitationResult().setAction(ElicitationResultAction.CANCEL)));
            case "hooks" -> new SessionHooks()
                    .setOnPreToolUse((PreToolUseHandler) (input, invocation) -> CompletableFuture.completedFuture(null));
            default -> throw new Failure.DriverError("no handler for session option " + option);
        };
    }

    /** Forwards every event the SDK delivers to the application as a session.event line. */
    private Consumer<SessionEvent> forward(String session) {
        return event -> forward(session, event.getType(), event);
    }

    /**
     * The capabilities, in the order both generations declare them, with what this generation's
     * tools and sessions have: isTerminal (explicit false included), defer and metadata, clearContext.
     */
    protected Map<String, Boolean> capabilities(boolean isTerminal, boolean deferAndMetadata, boolean clearContext) {
        Map<String, Boolean> c = new LinkedHashMap<>();
        c.put("transport.tcp", true);
        c.put("transport.stdio", true);
        c.put("session.resume", true);
        c.put("tool.isTerminal", isTerminal);
        c.put("tool.isTerminal.explicitFalse", isTerminal);
        c.put("tool.overridesBuiltInTool", true);
        c.put("tool.skipPermission", true);
        c.put("tool.defer", deferAndMetadata);
        c.put("tool.metadata", deferAndMetadata);
        c.put("session.setTools", false);
        c.put("session.clearContext", clearContext);
        c.put("events", true);
        declareShared(c, new LinkedHashMap<>());
        return c;
    }

    /** The notes on the connection and the tool flags, the same in both generations. */
    protected static void connectionAndFlagNotes(Map<String, String> n) {
        n.put("transport.tcp", "CopilotClientOptions.setCliUrl(\"host:port\")");
        n.put("transport.stdio", "CopilotClientOptions.setCliPath(path); the SDK spawns it with --server "
                + "--no-auto-update --log-level info --stdio (setEnvironment replaces the child's whole "
                + "environment, so the driver passes its own environment plus env)");
        n.put("tool.overridesBuiltInTool", "a nullable Boolean record component: unset, true and false are "
                + "distinct");
        n.put("tool.skipPermission", "a nullable Boolean record component: unset, true and false are distinct");
    }

    @Override
    public void setTools(String session, List<ToolSpec> tools) {
        throw new Failure.Unsupported(notes().get("session.setTools"));
    }
}
