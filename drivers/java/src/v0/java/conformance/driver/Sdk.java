package conformance.driver;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import com.github.copilot.sdk.CopilotSession;
import com.github.copilot.sdk.generated.rpc.SessionHistoryApi;
import com.github.copilot.sdk.generated.rpc.SessionToolsApi;
import com.github.copilot.sdk.json.ToolDefinition;
import com.github.copilot.sdk.json.ToolHandler;

/**
 * Adapter for the 0.x API of com.github:copilot-sdk-java (packages com.github.copilot.sdk.*), the
 * line pinned by default (the newest reachable when pinned; Maven Central also publishes 1.x). Its ToolDefinition is a plain record (name, description, parameters,
 * handler, overridesBuiltInTool, skipPermission) with no isTerminal, defer or metadata and no
 * copy-with methods; sessions have no clearContext and no setTools.
 */
final class Sdk extends SdkCalls {
    Sdk(Out out) {
        super(out);
    }

    @Override
    public Map<String, Boolean> capabilities() {
        return capabilities(false, false, false);
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
        connectionAndFlagNotes(n);
        n.put("events", "SessionConfig.setOnEvent; event types this SDK version does not know are delivered "
                + "as type \"unknown\" without data");
        declareShared(new LinkedHashMap<>(), n);
        n.put("session.option.streaming", sdkName() + ": SessionConfig.setStreaming(boolean) is a primitive, and "
                + "SessionRequestBuilder sends streaming only when true (isStreaming() ? true : null)");
        return n;
    }

    @Override
    public long clearContext(String session, String prompt) {
        throw new Failure.Unsupported(notes().get("session.clearContext"));
    }

    @Override
    protected ToolDefinition definition(String session, ToolSpec spec, AtomicReference<CopilotSession> slot) {
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
