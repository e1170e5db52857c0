package conformance.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Held handlers (PROTOCOL.md "Holding a handler"): {@code hold} arms a gate per (handle, kind), a
 * kind being a runtime-to-SDK method or {@code tool NAME}; a handler reached under an armed gate
 * reports as usual, then answers through a future that completes once {@code release} opens the
 * gate, the way a Java application composes on something slow instead of blocking the SDK's
 * thread. {@link #GIVE_UP_SECONDS} bounds the wait should the release never come.
 */
final class Holds {
    static final long GIVE_UP_SECONDS = 30;

    private static final Map<String, CompletableFuture<Void>> GATES = new ConcurrentHashMap<>();

    private Holds() {
    }

    private static List<String> keys(JsonNode args) {
        String kind = args.hasNonNull("method") ? args.get("method").asText()
                : args.hasNonNull("request") ? "request " + args.get("request").asText()
                : "tool " + args.path("tool").asText();
        List<String> out = new ArrayList<>();
        for (String k : new String[] {"session", "client"}) {
            if (args.hasNonNull(k)) {
                out.add(args.get(k).asText() + "\u0000" + kind);
            }
        }
        return out;
    }

    static ObjectNode hold(JsonNode args) {
        for (String k : keys(args)) {
            GATES.computeIfAbsent(k, x -> new CompletableFuture<>());
        }
        return Out.object();
    }

    static ObjectNode release(JsonNode args) {
        for (String k : keys(args)) {
            CompletableFuture<Void> gate = GATES.remove(k);
            if (gate != null) {
                gate.complete(null);
            }
        }
        return Out.object();
    }

    /**
     * The future a tool handler returns, watched for its cancellation while the tool is held: the
     * SDK cancelling it is how it tells the handler that the runtime resolved its call (capability
     * handler.cancel.tool), reported as {@code tool.cancelled} the moment it happens.
     */
    static <T> CompletableFuture<T> toldOnCancel(Out out, String session, String tool, CompletableFuture<T> answer) {
        if (!GATES.containsKey(session + "\u0000tool " + tool)) {
            return answer;
        }
        long reached = System.nanoTime();
        answer.whenComplete((r, e) -> {
            if (answer.isCancelled()) {
                ObjectNode args = Out.object();
                args.put("session", session);
                args.put("tool", tool);
                args.put("way", "the handler's CompletableFuture cancelled");
                args.put("afterMs", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - reached));
                out.event("tool.cancelled", args);
            }
        });
        return answer;
    }

    /**
     * A request event's handler under a {@code request} gate (PROTOCOL.md "Holding a handler"):
     * reports {@code request.held}, then answers through a future that completes once released,
     * reporting {@code request.cancelled} should the SDK cancel it (how it would tell the handler
     * that the runtime resolved its request, capability handler.cancel.&lt;kind&gt;). Not held: the
     * answer at once.
     */
    static <T> CompletableFuture<T> heldRequest(Out out, String session, String request,
            java.util.function.Supplier<CompletableFuture<T>> answer) {
        if (!GATES.containsKey(session + "\u0000request " + request)) {
            return answer.get();
        }
        ObjectNode held = Out.object();
        held.put("session", session);
        held.put("request", request);
        out.event("request.held", held);
        long reached = System.nanoTime();
        CompletableFuture<T> future = held(session, "request " + request).thenCompose(v -> answer.get());
        future.whenComplete((r, e) -> {
            if (future.isCancelled()) {
                ObjectNode args = Out.object();
                args.put("session", session);
                args.put("request", request);
                args.put("way", "the handler's CompletableFuture cancelled");
                args.put("afterMs", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - reached));
                out.event("request.cancelled", args);
            }
        });
        return future;
    }

    /** Completes once no gate is armed for the handle and kind (at once when none is). */
    static CompletableFuture<Void> held(String handle, String kind) {
        CompletableFuture<Void> gate = GATES.get(handle + "\u0000" + kind);
        if (gate == null) {
            return CompletableFuture.completedFuture(null);
        }
        return gate.copy().completeOnTimeout(null, GIVE_UP_SECONDS, TimeUnit.SECONDS);
    }
}
