package conformance.driver;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What every adapter shares, whatever package the SDK generation uses: the handle tables, the
 * client and session lifecycle around the SDK calls, the reply of send, the installed version and
 * the forwarding of session events. An adapter (src/&lt;api&gt;/java/conformance/driver/Sdk.java)
 * supplies only the calls that name the SDK's own classes.
 *
 * @param <C> the SDK's client class
 * @param <S> the SDK's session class
 */
abstract class SdkBase<C, S> implements SdkAdapter {
    private static final String ARTIFACT = "com.github:copilot-sdk-java";

    protected final Out out;
    private final Map<String, C> clients = new ConcurrentHashMap<>();
    private final Map<String, S> sessions = new ConcurrentHashMap<>();
    private final Map<String, String> owner = new ConcurrentHashMap<>(); // session handle -> client handle
    private final String version;

    /** {@code anchor} is a class of the SDK jar, whose Maven descriptor names the version. */
    protected SdkBase(Out out, Class<?> anchor) {
        this.out = out;
        this.version = installedVersion(anchor);
    }

    // The SDK calls an adapter makes with its own classes.

    /** Starts a client on the runtime at address, or one the SDK spawns from cliPath over stdio. */
    protected abstract C start(String address, String cliPath, Map<String, String> env) throws Exception;

    protected abstract S create(C client, String session, List<ToolSpec> tools) throws Exception;

    protected abstract S resume(C client, String session, String sessionId, List<ToolSpec> tools) throws Exception;

    protected abstract String sessionId(S session);

    /** Sends without waiting; returns the message id or null. */
    protected abstract String sendOnly(S session, String prompt) throws Exception;

    /** Sends and waits for the assistant's message; null when there is none. */
    protected abstract Reply sendAndWait(S session, String prompt, Long timeoutMs) throws Exception;

    /** Closes a session (the SDK sends session.destroy). */
    protected abstract void close(S session) throws Exception;

    protected abstract Future<?> stop(C client);

    protected abstract void forceStop(C client);

    /** The assistant's reply to send, as the adapter read it from the SDK's event. */
    protected record Reply(String messageId, String content) {
    }

    /** The version in the SDK jar's own Maven descriptor (pom.properties). */
    private static String installedVersion(Class<?> anchor) {
        Properties p = new Properties();
        try (InputStream in = anchor
                .getResourceAsStream("/META-INF/maven/com.github/copilot-sdk-java/pom.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // fall through to the manifest
        }
        String v = p.getProperty("version");
        if (v == null) {
            v = anchor.getPackage().getImplementationVersion();
        }
        return v != null ? v : "unknown";
    }

    protected String sdkName() {
        return ARTIFACT + " " + version;
    }

    @Override
    public String version() {
        return version;
    }

    /** The environment of a runtime the SDK spawns: the harness's, minus what would redirect it. */
    protected static Map<String, String> childEnv(Map<String, String> env) {
        Map<String, String> childEnv = new HashMap<>(System.getenv());
        childEnv.remove("COPILOT_SDK_DEFAULT_CONNECTION");
        childEnv.putAll(env);
        return childEnv;
    }

    @Override
    public void connect(String client, String address, String cliPath, Map<String, String> env) throws Exception {
        if (clients.containsKey(client)) {
            throw new Failure.DriverError("client handle already connected: " + client);
        }
        clients.put(client, start(address, cliPath, env));
    }

    @Override
    public String createSession(String client, String session, List<ToolSpec> tools) throws Exception {
        C c = client(client);
        checkFreeSession(session);
        return keep(client, session, create(c, session, tools));
    }

    @Override
    public String resumeSession(String client, String session, String sessionId, List<ToolSpec> tools)
            throws Exception {
        C c = client(client);
        checkFreeSession(session);
        return keep(client, session, resume(c, session, sessionId, tools));
    }

    private String keep(String client, String session, S s) {
        sessions.put(session, s);
        owner.put(session, client);
        return sessionId(s);
    }

    @Override
    public ObjectNode send(String session, String prompt, boolean wait, Long timeoutMs) throws Exception {
        S s = session(session);
        ObjectNode result = Out.object();
        if (!wait) {
            String messageId = sendOnly(s, prompt);
            if (messageId != null) {
                result.put("messageId", messageId);
            }
            return result;
        }
        Reply reply = sendAndWait(s, prompt, timeoutMs);
        if (reply != null) {
            if (reply.messageId() != null) {
                result.put("messageId", reply.messageId());
            }
            if (reply.content() != null) {
                result.put("content", reply.content());
            }
        }
        return result;
    }

    @Override
    public void disconnect(String session) throws Exception {
        close(session(session));
        sessions.remove(session);
        owner.remove(session);
    }

    @Override
    public void stopClient(String client) throws Exception {
        C c = client(client);
        try {
            stop(c).get();
        } finally {
            clients.remove(client);
            owner.entrySet().removeIf(e -> {
                if (e.getValue().equals(client)) {
                    sessions.remove(e.getKey());
                    return true;
                }
                return false;
            });
        }
    }

    @Override
    public void closeAll() {
        for (C c : new ArrayList<>(clients.values())) {
            try {
                stop(c).get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                forceStop(c);
            }
        }
        clients.clear();
        sessions.clear();
        owner.clear();
    }

    /** Forwards an event the SDK delivered to the application as a session.event line. */
    protected void forward(String session, String type, Object event) {
        ObjectNode args = Out.object();
        args.put("session", session);
        args.put("type", type);
        JsonNode data;
        try {
            data = Out.JSON.valueToTree(event).get("data");
        } catch (IllegalArgumentException e) {
            data = null;
            System.err.println("driver: cannot encode " + type + " data: " + e);
        }
        args.set("data", data != null && !data.isNull() ? data : Out.object());
        out.event("session.event", args);
    }

    protected C client(String handle) {
        C c = clients.get(handle);
        if (c == null) {
            throw new Failure.DriverError("unknown client handle: " + handle);
        }
        return c;
    }

    protected S session(String handle) {
        S s = sessions.get(handle);
        if (s == null) {
            throw new Failure.DriverError("unknown session handle: " + handle);
        }
        return s;
    }

    private void checkFreeSession(String handle) {
        if (sessions.containsKey(handle)) {
            throw new Failure.DriverError("session handle already in use: " + handle);
        }
    }
}
