package conformance.driver;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The protocol's SDK-neutral session options (drivers/PROTOCOL.md "Session options") mapped onto
 * the SDK's SessionConfig / ResumeSessionConfig setters. Which options exist is read from the
 * installed SDK's config classes by reflection (the setter and its declared parameter type), never
 * from a version list, so one adapter serves every version of an API generation.
 */
final class SessionOptions {
    /** A protocol option, the setter that takes it, and whether only ResumeSessionConfig has it. */
    record Option(String name, String setter, boolean resumeOnly) {
    }

    static final List<Option> ALL = List.of(
            new Option("model", "setModel", false),
            new Option("reasoningEffort", "setReasoningEffort", false),
            new Option("systemMessage", "setSystemMessage", false),
            new Option("availableTools", "setAvailableTools", false),
            new Option("excludedTools", "setExcludedTools", false),
            new Option("streaming", "setStreaming", false),
            new Option("includeSubAgentStreamingEvents", "setIncludeSubAgentStreamingEvents", false),
            new Option("workingDirectory", "setWorkingDirectory", false),
            new Option("customAgents", "setCustomAgents", false),
            new Option("mcpServers", "setMcpServers", false),
            new Option("configDiscovery", "setEnableConfigDiscovery", false),
            new Option("skillDirectories", "setSkillDirectories", false),
            new Option("disabledSkills", "setDisabledSkills", false),
            new Option("infiniteSessions", "setInfiniteSessions", false),
            new Option("provider", "setProvider", false),
            new Option("userInputHandler", "setOnUserInputRequest", false),
            new Option("elicitationHandler", "setOnElicitationRequest", false),
            new Option("hooks", "setHooks", false),
            new Option("continuePendingWork", "setContinuePendingWork", true),
            new Option("suppressResumeEvent", "setDisableResume", true));

    /** Handler options take {@code true} and install a handler instead of a value. */
    static final List<String> HANDLERS = List.of("userInputHandler", "elicitationHandler", "hooks");

    /**
     * The SDK's mapper for the option types {@link ByName} cannot build by name (an abstract
     * type); ByName builds the rest by property name. Unknown keys fail, so a key the SDK type
     * cannot carry is reported instead of silently dropped.
     */
    private static final ObjectMapper BIND = Out.JSON.copy()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private SessionOptions() {
    }

    /** The one-argument public setter {@code name} of {@code type}, or null. */
    static Method setter(Class<?> type, String name) {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == 1) {
                return m;
            }
        }
        return null;
    }

    /** session.option.* capabilities and notes for the given config classes. */
    static void declare(Class<?> create, Class<?> resume, String sdkName, Map<String, Boolean> caps,
            Map<String, String> notes) {
        for (Option o : ALL) {
            boolean onCreate = setter(create, o.setter) != null;
            boolean onResume = setter(resume, o.setter) != null;
            boolean ok = o.resumeOnly ? onResume : onCreate && onResume;
            caps.put("session.option." + o.name, ok);
            if (!ok) {
                String where = !onResume || o.resumeOnly ? resume.getSimpleName() : create.getSimpleName();
                notes.put("session.option." + o.name, sdkName + ": " + where + " has no " + o.setter);
            }
        }
    }

    /**
     * Applies every option in {@code options} to {@code config} through its setter, converting
     * the JSON into the setter's declared parameter type; {@code handlers} makes the handler
     * object for a handler option.
     */
    static void apply(Object config, JsonNode options, boolean resume, String sdkName,
            Function<String, Object> handlers) throws Exception {
        if (options == null || options.isNull()) {
            return;
        }
        if (!options.isObject()) {
            throw new Failure.DriverError("options must be an object");
        }
        Map<String, Option> byName = new LinkedHashMap<>();
        ALL.forEach(o -> byName.put(o.name, o));
        var fields = options.fields();
        while (fields.hasNext()) {
            var entry = fields.next();
            String name = entry.getKey();
            JsonNode value = entry.getValue();
            Option o = byName.get(name);
            if (o == null) {
                throw new Failure.Unsupported("the java driver does not know the session option \"" + name + "\"");
            }
            if (o.resumeOnly && !resume) {
                throw new Failure.DriverError("session option " + name + " exists on resume only");
            }
            Method set = setter(config.getClass(), o.setter);
            if (set == null) {
                throw new Failure.Unsupported(sdkName + ": " + config.getClass().getSimpleName() + " has no "
                        + o.setter + " (session option " + name + ")");
            }
            Object arg;
            if (HANDLERS.contains(name)) {
                if (!value.isBoolean() || !value.booleanValue()) {
                    throw new Failure.DriverError("session option " + name + " takes true (install a handler)");
                }
                arg = handlers.apply(name);
            } else {
                Type type = set.getGenericParameterTypes()[0];
                ByName.Result built = new ByName.Result();
                try {
                    arg = ByName.build(type, value, built, "", BIND);
                } catch (IllegalArgumentException e) {
                    throw new Failure.DriverError("session option " + name + ": " + value + " does not fit "
                            + type.getTypeName() + ": " + Failure.message(e));
                }
                if (!built.unknown.isEmpty()) {
                    throw new Failure.Unsupported(sdkName + ": " + type.getTypeName().replaceAll("[\\w.]*\\.", "")
                            + " has no field for " + String.join(", ", built.unknown) + " (session option " + name + ")");
                }
            }
            set.invoke(config, arg);
        }
    }
}
