package conformance.driver;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Conformance driver for the GitHub Copilot Java SDK: reads protocol commands from stdin (one JSON
 * object per line), runs them through the SDK and answers on stdout. See drivers/PROTOCOL.md.
 */
public final class Main {
    private static final int PROTOCOL_VERSION = 1;

    private final Out out;
    private final SdkAdapter sdk;
    private final Rpc rpc;
    private final Convert convert;
    private final Properties build;

    private Main(Out out, SdkAdapter sdk, Properties build) {
        this.out = out;
        this.sdk = sdk;
        this.rpc = new Rpc(sdk);
        this.convert = new Convert(rpc, sdk);
        this.build = build;
    }

    public static void main(String[] args) throws IOException {
        // stdout is the protocol channel: keep the real one for protocol lines and send anything
        // else that prints to System.out (the SDK, a library) to stderr.
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        logToStderr();

        Out out = new Out(protocol);
        Main main = new Main(out, new Sdk(out), buildProperties());
        main.run(System.in);
    }

    /**
     * The SDK logs through java.util.logging. Route every logger to one stderr handler; the level
     * comes from COPILOT_DRIVER_LOG_LEVEL (a java.util.logging level name, default INFO).
     */
    private static void logToStderr() {
        LogManager.getLogManager().reset();
        Level level;
        try {
            level = Level.parse(System.getenv().getOrDefault("COPILOT_DRIVER_LOG_LEVEL", "INFO"));
        } catch (IllegalArgumentException e) {
            level = Level.INFO;
        }
        ConsoleHandler handler = new ConsoleHandler(); // writes to System.err
        handler.setLevel(level);
        Logger root = Logger.getLogger("");
        root.setLevel(level);
        root.addHandler(handler);
    }

    private static Properties buildProperties() throws IOException {
        Properties p = new Properties();
        try (InputStream in = Main.class.getResourceAsStream("/conformance-driver.properties")) {
            if (in != null) {
                p.load(in);
            }
        }
        return p;
    }

    private void run(InputStream stdin) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8));
        // driver.concurrent: each command runs on a thread of its own, so that scenarios sharing
        // this JVM overlap their waits; shutdown comes when nothing is in flight and is answered
        // here, after the commands still running (bounded).
        ExecutorService commands = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "command");
            t.setDaemon(true);
            return t;
        });
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            if (isShutdown(line)) {
                commands.shutdown();
                try {
                    commands.awaitTermination(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                handle(line);
                break;
            }
            String command = line;
            commands.execute(() -> handle(command));
        }
        exit();
    }

    private static boolean isShutdown(String line) {
        try {
            return "shutdown".equals(Out.JSON.readTree(line).path("cmd").asText());
        } catch (IOException e) {
            return false;
        }
    }

    private void exit() {
        try {
            sdk.closeAll();
        } catch (Exception e) {
            System.err.println("driver: closing SDK clients: " + e);
        }
        System.err.flush();
        System.exit(0); // SDK threads (readers, executors) must not keep the process alive
    }

    /** Runs one command line; returns true when the driver should exit. */
    private boolean handle(String line) {
        long id = 0;
        String cmd = null;
        try {
            JsonNode command = Out.JSON.readTree(line);
            id = command.path("id").asLong();
            cmd = command.path("cmd").asText();
            JsonNode args = command.path("args");
            ObjectNode result = dispatch(cmd, args);
            respondOk(id, result);
            return "shutdown".equals(cmd);
        } catch (Failure.Unsupported u) {
            ObjectNode response = response(id, "unsupported");
            response.put("reason", u.getMessage());
            out.write(response);
        } catch (Failure.DriverError d) {
            respondError(id, "DriverError", d.getMessage());
        } catch (Failure.Cancelled c) {
            ObjectNode response = response(id, "error");
            ObjectNode error = Out.object();
            error.put("type", c.getCause().getClass().getSimpleName());
            error.put("message", Failure.message(c.getCause()));
            error.put("cancelled", true);
            error.put("afterCancelMs", c.afterCancelMs);
            response.set("error", error);
            out.write(response);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            respondError(id, "InterruptedException", Failure.message(e));
        } catch (Exception | LinkageError e) {
            Throwable cause = Failure.unwrap(e);
            if (cause instanceof Failure.Unsupported u) {
                ObjectNode response = response(id, "unsupported");
                response.put("reason", u.getMessage());
                out.write(response);
            } else if (e instanceof com.fasterxml.jackson.core.JsonProcessingException) {
                respondError(id, "DriverError", "bad command line: " + Failure.message(e));
            } else {
                System.err.println("driver: " + cmd + " failed:");
                cause.printStackTrace(System.err);
                respondError(id, cause.getClass().getSimpleName(), Failure.message(cause));
            }
        }
        return false;
    }

    private ObjectNode dispatch(String cmd, JsonNode args) throws Exception {
        ObjectNode result = Out.object();
        if (cmd.equals("createSession") || cmd.equals("resumeSession") || cmd.equals("connect")) {
            sdk.nextFields(args.get("fields"));
            sdk.nextSurfaceHandlers(cmd.equals("connect") ? null : args.get("surfaceHandlers"), optional(args, "session"));
            sdk.nextHandlers(args.get("handlers"), optional(args, "session"));
        }
        Cancel.next(args);
        switch (cmd) {
            case "hello" -> {
                result.put("protocolVersion", PROTOCOL_VERSION);
                result.put("sdk", "java");
                result.put("version", sdk.version());
                result.put("source", build.getProperty("sdk.source", "maven:com.github:copilot-sdk-java:" + sdk.version()));
                Map<String, Boolean> caps = new LinkedHashMap<>(sdk.capabilities());
                Map<String, String> notes = new LinkedHashMap<>(sdk.notes());
                rpc.declare(caps, notes);
                convert.declare(caps, notes);
                notes.put("driver.builtBy", ByName.note()); // after rpc planned its request types
                caps.put("driver.concurrent", true); // commands run on an executor (run)
                result.set("capabilities", Out.JSON.valueToTree(caps));
                result.set("notes", Out.JSON.valueToTree(notes));
                // What hello names as missing: the adapter's symbols, and for rpc.generated the
                // generated class Rpc looks for; nothing for a capability declared true.
                Map<String, String> missing = new TreeMap<>(sdk.missing());
                missing.put("rpc.generated", rpc.generatedPackage() + ".SessionRpc");
                missing.put("convert.roundtrip", rpc.generatedPackage() + ".ServerRpc");
                missing.keySet().removeIf(c -> Boolean.TRUE.equals(caps.get(c)));
                result.set("missing", Out.JSON.valueToTree(missing));
            }
            case "connect" -> {
                String address = optional(args, "address");
                String cliPath = optional(args, "cliPath");
                if ((address == null) == (cliPath == null)) {
                    throw new Failure.DriverError("connect needs exactly one of address and cliPath");
                }
                Map<String, String> env = new LinkedHashMap<>();
                args.path("env").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
                sdk.connect(required(args, "client"), address, cliPath, env, args.get("options"));
            }
            case "surface" -> result = sdk.surface();
            case "createSession" -> result.put("sessionId",
                    sdk.createSession(required(args, "client"), required(args, "session"),
                            ToolSpec.parseAll(args.get("tools")), args.get("options"),
                            args.hasNonNull("gitHubToken") ? args.get("gitHubToken").asText() : null));
            case "resumeSession" -> result.put("sessionId",
                    sdk.resumeSession(required(args, "client"), required(args, "session"),
                            required(args, "sessionId"), ToolSpec.parseAll(args.get("tools")), args.get("options")));
            case "setTools" -> sdk.setTools(required(args, "session"), ToolSpec.parseAll(args.get("tools")));
            case "clearContext" -> result.put("messagesCleared",
                    sdk.clearContext(required(args, "session"), required(args, "prompt")));
            case "send" -> {
                Long timeoutMs = args.hasNonNull("timeoutMs") ? args.get("timeoutMs").asLong() : null;
                result = sdk.send(required(args, "session"), required(args, "prompt"),
                        args.path("wait").asBoolean(false), timeoutMs);
            }
            case "disconnect" -> sdk.disconnect(required(args, "session"));
            case "stopClient" -> sdk.stopClient(required(args, "client"));
            case "rpc" -> result = rpc.call(args);
            case "rpcBatch" -> result = rpc.batch(args);
            case "convert" -> result = convert.convert(args);
            case "hold" -> result = Holds.hold(args);
            case "release" -> result = Holds.release(args);
            case "shutdown" -> {
            }
            // A newer protocol command this driver does not know: the SDK cannot be asked to do it.
            default -> throw new Failure.Unsupported("the java driver has no command \"" + cmd + "\"");
        }
        if (cmd.equals("createSession") || cmd.equals("resumeSession")) {
            ObjectNode account = sdk.takeHandlerAccount();
            if (account != null) {
                result.setAll(account);
            }
        }
        return result;
    }

    private static String required(JsonNode args, String key) {
        String v = optional(args, key);
        if (v == null) {
            throw new Failure.DriverError("missing argument: " + key);
        }
        return v;
    }

    private static String optional(JsonNode args, String key) {
        JsonNode v = args.get(key);
        return v == null || v.isNull() ? null : v.asText();
    }

    private ObjectNode response(long id, String outcome) {
        ObjectNode response = Out.object();
        response.put("id", id);
        response.put("outcome", outcome);
        return response;
    }

    private void respondOk(long id, ObjectNode result) {
        ObjectNode response = response(id, "ok");
        response.set("result", result);
        out.write(response);
    }

    private void respondError(long id, String type, String message) {
        ObjectNode response = response(id, "error");
        ObjectNode error = Out.object();
        error.put("type", type);
        error.put("message", message);
        response.set("error", error);
        out.write(response);
    }
}
