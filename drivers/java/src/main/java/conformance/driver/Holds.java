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
        String kind = args.hasNonNull("method") ? args.get("method").asText() : "tool " + args.path("tool").asText();
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

    /** Completes once no gate is armed for the handle and kind (at once when none is). */
    static CompletableFuture<Void> held(String handle, String kind) {
        CompletableFuture<Void> gate = GATES.get(handle + "\u0000" + kind);
        if (gate == null) {
            return CompletableFuture.completedFuture(null);
        }
        return gate.copy().completeOnTimeout(null, GIVE_UP_SECONDS, TimeUnit.SECONDS);
    }
}
