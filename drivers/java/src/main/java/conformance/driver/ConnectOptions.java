package conformance.driver;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Connect options (drivers/PROTOCOL.md "Connect options") mapped onto the SDK's
 * CopilotClientOptions setters, found by reflection on the installed class like
 * {@link SessionOptions}, so one adapter serves every version of an API generation.
 */
final class ConnectOptions {
    /** A protocol connect option and the CopilotClientOptions setter that takes it. */
    record Option(String name, String setter) {
    }

    static final List<Option> ALL = List.of(
            new Option("connectionToken", "setTcpConnectionToken"),
            new Option("clientInfo", "setClientInfo"),
            new Option("gitHubTelemetry", "setOnGitHubTelemetry"));

    private ConnectOptions() {
    }

    static void declare(Class<?> clientOptions, String sdkName, Map<String, Boolean> caps, Map<String, String> notes) {
        for (Option o : ALL) {
            boolean ok = SessionOptions.setter(clientOptions, o.setter) != null;
            caps.put("connect.option." + o.name, ok);
            if (!ok) {
                notes.put("connect.option." + o.name, sdkName + ": " + clientOptions.getSimpleName() + " has no "
                        + o.setter);
            }
        }
    }

    /**
     * Sets each option on {@code clientOptions}: the token as given, clientInfo converted into the
     * setter's parameter type, and for gitHubTelemetry a callback that accepts every notification.
     */
    static void apply(Object clientOptions, JsonNode options, boolean tcp, String sdkName) throws Exception {
        if (options == null || options.isNull()) {
            return;
        }
        if (!options.isObject()) {
            throw new Failure.DriverError("connect options must be an object");
        }
        var fields = options.fields();
        while (fields.hasNext()) {
            var entry = fields.next();
            String name = entry.getKey();
            JsonNode value = entry.getValue();
            Option o = ALL.stream().filter(x -> x.name.equals(name)).findFirst().orElseThrow(
                    () -> new Failure.Unsupported("the java driver does not know the connect option \"" + name + "\""));
            Method set = SessionOptions.setter(clientOptions.getClass(), o.setter);
            if (set == null) {
                throw new Failure.Unsupported(sdkName + ": " + clientOptions.getClass().getSimpleName() + " has no "
                        + o.setter + " (connect option " + name + ")");
            }
            Object arg = switch (name) {
                case "connectionToken" -> {
                    if (!tcp) {
                        throw new Failure.Unsupported(sdkName + ": " + o.setter + " is for TCP connections only");
                    }
                    yield value.asText();
                }
                case "gitHubTelemetry" -> {
                    if (!value.isBoolean() || !value.booleanValue()) {
                        throw new Failure.DriverError("connect option gitHubTelemetry takes true");
                    }
                    if (set.getParameterTypes()[0] != Function.class) {
                        throw new Failure.Unsupported(sdkName + ": " + o.setter + " takes a "
                                + set.getParameterTypes()[0].getName() + ", which the driver does not build");
                    }
                    Function<Object, CompletableFuture<Void>> accept = notification -> CompletableFuture
                            .completedFuture(null);
                    yield accept;
                }
                default -> ByName.strict(set.getGenericParameterTypes()[0], value, Out.JSON);
            };
            set.invoke(clientOptions, arg);
        }
    }
}
