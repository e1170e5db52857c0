package conformance.driver;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import com.github.copilot.AllowCopilotExperimental;
import com.github.copilot.CopilotSession;
import com.github.copilot.generated.rpc.SessionHistoryClearContextParams;
import com.github.copilot.generated.rpc.SessionHistoryClearContextResult;
import com.github.copilot.rpc.ToolDefer;
import com.github.copilot.rpc.ToolDefinition;
import com.github.copilot.rpc.ToolHandler;

/**
 * Adapter for the 1.x API of com.github:copilot-sdk-java (packages com.github.copilot.*), built
 * from a github/copilot-sdk checkout (java/). Tools are made with ToolDefinition.create(...) and
 * its copy-with methods (overridesBuiltInTool, skipPermission, defer, metadata, isTerminal),
 * applied in the spec's optionOrder; clearContext is the generated
 * session.getRpc().history.clearContext. The copy-with methods and the generated RPC are
 * {@code @CopilotExperimental}, hence the opt-in below.
 */
@AllowCopilotExperimental
final class Sdk extends SdkCalls {
    Sdk(Out out) {
        super(out);
    }

    @Override
    public Map<String, Boolean> capabilities() {
        // isTerminal came with 1.0.10-SNAPSHOT's #2129 (isTerminal(boolean)), later isTerminal(Boolean):
        // looked up, so the adapter builds against a 1.x from before it too.
        return capabilities(IS_TERMINAL != null, true, true);
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
        connectionAndFlagNotes(n);
        n.put("events", "SessionConfig.setOnEvent; event types this SDK version does not know are delivered "
                + "as type \"unknown\"");
        declareShared(new LinkedHashMap<>(), n);
        return n;
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
    protected ToolDefinition definition(String session, ToolSpec spec, AtomicReference<CopilotSession> slot) {
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
