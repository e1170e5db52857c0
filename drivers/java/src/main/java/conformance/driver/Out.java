package conformance.driver;

import java.io.PrintStream;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The protocol channel: the process's real stdout, one JSON object per line. Every write takes
 * the same lock, because SDK threads (tool handlers, event callbacks) write events while the
 * main thread is waiting for a command to finish.
 */
final class Out {
    // Non-ASCII is written as JSON unicode escapes: a lone surrogate the runtime sent (a legal JSON escape)
    // cannot be encoded as UTF-8 and would otherwise reach the harness as '?'.
    static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII).build())
            .findAndRegisterModules() // java.time support for SDK event payloads
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    private final PrintStream stream;

    Out(PrintStream stream) {
        this.stream = stream;
    }

    static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    void write(ObjectNode message) {
        String line;
        try {
            line = JSON.writeValueAsString(message);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode protocol line", e);
        }
        synchronized (this) {
            stream.print(line);
            stream.print('\n');
            stream.flush();
        }
    }

    void event(String name, ObjectNode args) {
        ObjectNode message = object();
        message.put("event", name);
        message.set("args", args);
        write(message);
    }

    void log(String text) {
        ObjectNode args = object();
        args.put("message", text);
        event("log", args);
    }
}
