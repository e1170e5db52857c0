package conformance.driver;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The application's surface (drivers/PROTOCOL.md "Surface"), read by reflection from the SDK's
 * config classes: every public one-argument setter {@code setXxx} is the field {@code xxx} with
 * the setter's declared parameter type. No field is named here.
 */
final class Surface {
    // Strict, like SessionOptions: a key the SDK's type lacks would be dropped silently and look
    // like the SDK dropping it; it is "cannot hold" (unsupported) instead.
    private static final ObjectMapper BIND = Out.JSON.copy()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private Surface() {
    }

    /** The setters of a config class, in name order (reflection gives no declaration order). */
    static List<Method> setters(Class<?> type) {
        Map<String, Method> out = new LinkedHashMap<>();
        Arrays.stream(type.getMethods())
                .filter(m -> m.getName().startsWith("set") && m.getName().length() > 3 && m.getParameterCount() == 1
                        && !Modifier.isStatic(m.getModifiers()))
                .sorted(Comparator.comparing(Method::getName))
                .forEach(m -> out.putIfAbsent(m.getName(), m));
        return new ArrayList<>(out.values());
    }

    static String fieldName(Method setter) {
        String n = setter.getName().substring(3);
        return Character.toLowerCase(n.charAt(0)) + n.substring(1);
    }

    /** The neutral shape of a Java type, for the harness's value generator. */
    static String shape(Type t) {
        Class<?> raw = t instanceof ParameterizedType p ? (Class<?>) p.getRawType() : t instanceof Class<?> c ? c : Object.class;
        if (raw == String.class) {
            return "string";
        }
        if (raw == boolean.class || raw == Boolean.class) {
            return "boolean";
        }
        if (raw == int.class || raw == Integer.class || raw == long.class || raw == Long.class) {
            return "integer";
        }
        if (raw == double.class || raw == Double.class || raw == float.class || raw == Float.class) {
            return "number";
        }
        if (raw.isEnum()) {
            return "other";
        }
        if (List.class.isAssignableFrom(raw)) {
            if (t instanceof ParameterizedType p && p.getActualTypeArguments()[0] == String.class) {
                return "string[]";
            }
            return "array";
        }
        if (Map.class.isAssignableFrom(raw)) {
            return "map";
        }
        if (raw.isInterface() && raw.getMethods().length > 0 && Arrays.stream(raw.getMethods()).filter(m -> Modifier.isAbstract(m.getModifiers())).count() == 1) {
            return "handler"; // a functional interface: a callback the application registers
        }
        return "object";
    }

    static ArrayNode entries(Map<String, Class<?>> owners) {
        ArrayNode out = Out.JSON.createArrayNode();
        owners.forEach((owner, type) -> {
            for (Method m : setters(type)) {
                Type t = m.getGenericParameterTypes()[0];
                String shape = shape(t);
                ObjectNode e = out.addObject();
                e.put("owner", owner);
                e.put("name", fieldName(m));
                e.put("type", t.getTypeName());
                e.put("kind", shape.equals("handler") ? "handler" : "field");
                e.put("shape", shape);
                e.put("optional", !m.getParameterTypes()[0].isPrimitive());
                e.put("declaredBy", type.getName() + "." + m.getName());
            }
        });
        return out;
    }

    /** Sets each named field of {@code config} through its setter, the JSON bound to its type. */
    static void apply(Object config, JsonNode fields, String sdkName) throws Exception {
        if (fields == null || fields.isNull()) {
            return;
        }
        var it = fields.fields();
        while (it.hasNext()) {
            var f = it.next();
            String setter = "set" + Character.toUpperCase(f.getKey().charAt(0)) + f.getKey().substring(1);
            Method m = SessionOptions.setter(config.getClass(), setter);
            if (m == null) {
                throw new Failure.Unsupported(sdkName + ": " + config.getClass().getSimpleName() + " has no field " + f.getKey());
            }
            Object arg;
            try {
                arg = BIND.convertValue(f.getValue(), BIND.getTypeFactory().constructType(m.getGenericParameterTypes()[0]));
            } catch (IllegalArgumentException e) {
                throw new Failure.Unsupported(sdkName + ": " + config.getClass().getSimpleName() + "." + f.getKey()
                        + " cannot hold " + f.getValue() + ": " + Failure.message(e));
            }
            m.invoke(config, arg);
        }
    }
}
