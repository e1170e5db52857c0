package conformance.driver;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One protocol Tool (see drivers/PROTOCOL.md). A {@code null} field means the key was absent:
 * "the application did not set this option", so the adapter must not set it on the SDK's tool.
 */
final class ToolSpec {
    /** Option names that {@code optionOrder} may list, in the order used for unlisted options. */
    static final List<String> OPTIONS = List.of("description", "parameters", "overridesBuiltInTool", "skipPermission",
            "defer", "metadata", "isTerminal");

    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    final String name;
    final String description;
    final Map<String, Object> parameters;
    final Boolean isTerminal;
    final Boolean overridesBuiltInTool;
    final Boolean skipPermission;
    final String defer;
    final Map<String, Object> metadata;
    final List<String> optionOrder;
    final String style;
    final Handler handler;

    private ToolSpec(JsonNode spec) {
        name = text(spec, "name");
        if (name == null || name.isEmpty()) {
            throw new Failure.DriverError("tool without a name: " + spec);
        }
        description = text(spec, "description");
        parameters = map(spec, "parameters");
        isTerminal = bool(spec, "isTerminal");
        overridesBuiltInTool = bool(spec, "overridesBuiltInTool");
        skipPermission = bool(spec, "skipPermission");
        defer = text(spec, "defer");
        metadata = map(spec, "metadata");
        style = text(spec, "style");
        List<String> order = null;
        if (spec.hasNonNull("optionOrder")) {
            order = new ArrayList<>();
            for (JsonNode item : spec.get("optionOrder")) {
                order.add(item.asText());
            }
        }
        optionOrder = order;
        JsonNode h = spec.get("handler");
        if (h == null || !h.isObject()) {
            throw new Failure.DriverError("tool " + name + " has no handler object");
        }
        handler = new Handler(h);
    }

    static List<ToolSpec> parseAll(JsonNode tools) {
        List<ToolSpec> out = new ArrayList<>();
        if (tools != null && !tools.isNull()) {
            if (!tools.isArray()) {
                throw new Failure.DriverError("tools must be an array");
            }
            for (JsonNode t : tools) {
                out.add(new ToolSpec(t));
            }
        }
        return out;
    }

    /** Whether the spec sets the named option at all. */
    boolean has(String option) {
        return switch (option) {
            case "description" -> description != null;
            case "parameters" -> parameters != null;
            case "overridesBuiltInTool" -> overridesBuiltInTool != null;
            case "skipPermission" -> skipPermission != null;
            case "defer" -> defer != null;
            case "metadata" -> metadata != null;
            case "isTerminal" -> isTerminal != null;
            default -> false;
        };
    }

    /**
     * The options this spec sets, in the order to apply them: first the ones {@code optionOrder}
     * lists, in its order, then the rest in {@link #OPTIONS} order.
     */
    List<String> optionsInOrder() {
        List<String> out = new ArrayList<>();
        if (optionOrder != null) {
            for (String o : optionOrder) {
                if (!OPTIONS.contains(o)) {
                    throw new Failure.DriverError("tool " + name + ": unknown option in optionOrder: " + o);
                }
                if (has(o) && !out.contains(o)) {
                    out.add(o);
                }
            }
        }
        for (String o : OPTIONS) {
            if (has(o) && !out.contains(o)) {
                out.add(o);
            }
        }
        return out;
    }

    /** The handler behaviour, as data. */
    static final class Handler {
        static final List<String> ACTIONS = List.of("return", "fail", "clearContext", "returnValue", "returnResult");

        final String action;
        final String text;
        final String message;
        final String prompt;
        final String label;
        /** The tool whose handler this one waits for before it acts (PROTOCOL.md "Tool"), or null. */
        final String waitFor;
        /** returnValue: the record as a Java application holds it. */
        final Ticket value;
        /** returnResult: the wire fields of the SDK's tool-result type. */
        final JsonNode result;

        Handler(JsonNode h) {
            action = text(h, "action");
            text = text(h, "text");
            message = text(h, "message");
            prompt = text(h, "prompt");
            label = text(h, "label");
            waitFor = text(h, "waitFor");
            if (!ACTIONS.contains(action)) {
                throw new Failure.Unsupported("the java driver does not know the handler action \"" + action + "\"");
            }
            if ("returnValue".equals(action)) {
                try {
                    value = Out.JSON.treeToValue(h.get("value"), Ticket.class);
                } catch (Exception e) {
                    throw new Failure.DriverError("handler.value is not a record (id, at, status, count, tags): "
                            + Failure.message(e));
                }
            } else {
                value = null;
            }
            result = h.get("result");
            if ("returnResult".equals(action) && (result == null || !result.isObject())) {
                throw new Failure.DriverError("handler.result must be an object");
            }
        }
    }

    /**
     * The structured value of {@code returnValue} (PROTOCOL.md "Tool results"): a record with a
     * UUID, an Instant and an enum, returned from the tool handler as is, so the SDK's own
     * serialization (its Jackson ObjectMapper) is what reaches the wire.
     */
    record Ticket(UUID id, Instant at, Status status, long count, List<String> tags) {
    }

    enum Status {
        @JsonProperty("open")
        OPEN,
        @JsonProperty("closed")
        CLOSED
    }

    /** The SDK's clearContext call for the session a tool runs in (blocking). */
    @FunctionalInterface
    interface ClearContext {
        long clear(String prompt) throws Exception;
    }

    /**
     * The bound of a waitFor wait: an SDK that serves one runtime request at a time still gets an
     * answer (the harness reads the order of the answers on the wire, never this time).
     */
    static final long WAIT_GIVE_UP_SECONDS = 5;

    // One future per (session handle, tool), completed when that tool's handler has returned.
    private static final Map<String, CompletableFuture<Void>> RETURNED = new ConcurrentHashMap<>();

    private static CompletableFuture<Void> returned(String session, String tool) {
        return RETURNED.computeIfAbsent(session + "\u0000" + tool, k -> new CompletableFuture<>());
    }

    /**
     * The SDK's tool handler body: {@link #invoke} as the handler's CompletableFuture. Without
     * waitFor it runs at once, in the SDK's call (a fail throws there, as an application's
     * handler would). With waitFor the future the handler returns completes once that tool's
     * handler has returned in this session, the way a Java application composes on another
     * future instead of blocking the SDK's executor thread (the common pool may have a single
     * thread); after {@link #WAIT_GIVE_UP_SECONDS} it answers "gave up waiting for the tool
     * NAME". Every handler records its return for the waiters, whatever its outcome.
     */
    CompletableFuture<Object> run(Out out, String session, Map<String, Object> arguments, ClearContext clearContext,
            Function<JsonNode, Object> resultObject) {
        // A held tool (Holds) answers once the harness releases it.
        if (handler.waitFor == null) {
            Object result;
            try {
                result = invoke(out, session, arguments, clearContext, resultObject);
            } catch (RuntimeException e) {
                returned(session, name).complete(null);
                throw e;
            }
            return Holds.toldOnCancel(out, session, name, Holds.held(session, "tool " + name).thenApply(v -> result)
                    .whenComplete((r, e) -> returned(session, name).complete(null)));
        }
        String other = handler.waitFor;
        return Holds.toldOnCancel(out, session, name, returned(session, other).thenApply(v -> true)
                .completeOnTimeout(false, WAIT_GIVE_UP_SECONDS, TimeUnit.SECONDS)
                .thenApply(done -> done ? invoke(out, session, arguments, clearContext, resultObject)
                        : (Object) ("gave up waiting for the tool " + other))
                .thenCompose(r -> Holds.held(session, "tool " + name).thenApply(v -> r))
                .whenComplete((r, e) -> returned(session, name).complete(null)));
    }

    /**
     * Runs the handler behaviour inside the SDK's tool handler: announces the call, then returns
     * the text, the value or the SDK's tool-result object ({@code resultObject} builds it from the
     * wire fields of a {@code returnResult} handler; the adapter checks it can when the tool is
     * built), throws, or clears the context first. Blocking is fine here: the SDK runs tool
     * handlers on an executor, never on its reader thread.
     */
    Object invoke(Out out, String session, Map<String, Object> arguments, ClearContext clearContext,
            Function<JsonNode, Object> resultObject) {
        ObjectNode invoked = Out.object();
        invoked.put("session", session);
        invoked.put("tool", name);
        if (handler.label != null) {
            invoked.put("label", handler.label);
        }
        invoked.set("arguments", Out.JSON.valueToTree(arguments != null ? arguments : new LinkedHashMap<>()));
        out.event("tool.invoked", invoked);

        switch (handler.action) {
            case "fail":
                throw new RuntimeException(handler.message != null ? handler.message : "");
            case "returnValue":
                return handler.value;
            case "returnResult":
                return resultObject.apply(handler.result);
            case "clearContext": {
                ObjectNode cleared = Out.object();
                cleared.put("session", session);
                cleared.put("tool", name);
                long count;
                try {
                    count = clearContext.clear(handler.prompt);
                } catch (Exception e) {
                    Throwable cause = Failure.unwrap(e);
                    String msg = Failure.message(cause);
                    cleared.put("error", msg);
                    out.event("tool.clearContext", cleared);
                    throw new RuntimeException(msg, cause);
                }
                cleared.put("messagesCleared", count);
                out.event("tool.clearContext", cleared);
                String t = handler.text != null ? handler.text : "";
                return t.replace("{messagesCleared}", Long.toString(count));
            }
            default:
                return handler.text != null ? handler.text : "";
        }
    }

    private static String text(JsonNode node, String key) {
        JsonNode v = node.get(key);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static Boolean bool(JsonNode node, String key) {
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isBoolean()) {
            throw new Failure.DriverError(key + " must be a boolean");
        }
        return v.booleanValue();
    }

    private static Map<String, Object> map(JsonNode node, String key) {
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isObject()) {
            throw new Failure.DriverError(key + " must be an object");
        }
        return Out.JSON.convertValue(v, MAP);
    }
}
