package conformance.driver;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code convert} command (PROTOCOL.md "Generated RPC layer", Converters): a value of one of the
 * SDK's generated classes, found by its name in the generated packages (the wrappers' package and
 * the one above it, which holds the session events), built by name ({@link ByName}), written to
 * JSON with Jackson and read back with Jackson. The SDK's own mapper is not public, so the mapper is
 * the one an application makes: {@code JsonMapper.builder().findAndAddModules()}, dates written as
 * ISO-8601 text; the classes'
 * Jackson annotations decide what it writes.
 */
final class Convert {
    // Dates as ISO-8601 text, as the wire writes them (Jackson's default is epoch numbers).
    private static final ObjectMapper MAPPER = JsonMapper.builder().findAndAddModules()
            .disable(com.fasterxml.jackson.databind.SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).build();
    private static final ObjectMapper FALLBACK = MAPPER.copy().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    private final Rpc rpc;
    private final SdkAdapter sdk;

    Convert(Rpc rpc, SdkAdapter sdk) {
        this.rpc = rpc;
        this.sdk = sdk;
    }

    private List<String> packages() {
        String pkg = rpc.generatedPackage();
        int dot = pkg.lastIndexOf('.');
        return dot < 0 ? List.of(pkg) : List.of(pkg, pkg.substring(0, dot));
    }

    /** The public, concrete generated class named name, or null. */
    Class<?> find(String name) {
        for (String pkg : packages()) {
            try {
                Class<?> c = Class.forName(pkg + "." + name);
                int mod = c.getModifiers();
                if (Modifier.isPublic(mod) && !c.isInterface() && !Modifier.isAbstract(mod) && !c.isEnum()) {
                    return c;
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // not in this package
            }
        }
        return null;
    }

    void declare(Map<String, Boolean> caps, Map<String, String> notes) {
        boolean has = find("ServerRpc") != null;
        caps.put("convert.roundtrip", has);
        notes.put("convert.roundtrip", has
                ? "the generated classes of " + String.join(" and ", packages()) + " by name, built by name (ByName), written and read back "
                        + "with an application's Jackson mapper (JsonMapper.builder().findAndAddModules(), dates as ISO-8601 text; the SDK's RpcMapper is not public)"
                : "this SDK version has no generated classes in " + String.join(" or ", packages()));
    }

    ObjectNode convert(JsonNode args) {
        ArrayNode outcomes = Out.JSON.createArrayNode();
        for (JsonNode v : args.path("values")) {
            outcomes.add(one(v.path("type").asText(""), v.path("value")));
        }
        ObjectNode result = Out.object();
        result.set("outcomes", outcomes);
        return result;
    }

    private ObjectNode one(String name, JsonNode value) {
        ObjectNode o = Out.object();
        Class<?> c = find(name);
        if (c == null) {
            o.put("outcome", "unsupported");
            o.put("reason", "copilot-sdk-java " + sdk.version() + ": the generated packages declare no class " + name);
            return o;
        }
        ByName.Result built = new ByName.Result();
        Object obj;
        try {
            obj = ByName.build(c, value, built, "", FALLBACK);
        } catch (Exception | LinkageError e) {
            o.put("outcome", "error");
            o.set("error", Failure.errorObject("DriverError", "cannot build " + name + " by name: " + Failure.message(Failure.unwrap(e))));
            return o;
        }
        JsonNode written;
        try {
            written = MAPPER.valueToTree(obj);
        } catch (RuntimeException | LinkageError e) {
            o.put("outcome", "error");
            o.set("error", Failure.errorObject(e));
            return o;
        }
        List<String> lost = new ArrayList<>();
        ByName.unrepresentable(value, written, built, "", lost);
        Collections.sort(lost);
        o.put("outcome", "ok");
        o.set("json", written);
        ArrayNode unrep = o.putArray("unrepresentable");
        lost.forEach(unrep::add);
        try {
            o.set("back", MAPPER.valueToTree(MAPPER.treeToValue(written, c)));
        } catch (Exception | LinkageError e) {
            o.set("readError", Failure.errorObject(e));
        }
        return o;
    }
}
