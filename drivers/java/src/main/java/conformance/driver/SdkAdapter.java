package conformance.driver;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What the protocol needs from the SDK. One implementation per SDK API generation lives in
 * src/&lt;api&gt;/java/conformance/driver/Sdk.java (Maven compiles exactly one of them); each extends
 * {@link SdkBase}, which holds everything that does not name the SDK's own classes. Handles are the
 * harness's names for clients and sessions. Methods throw what the SDK threw,
 * {@link Failure.Unsupported} when the SDK lacks the feature, {@link Failure.DriverError} for bad
 * input.
 */
interface SdkAdapter {
    /** The installed SDK version, read from its Maven metadata at run time. */
    String version();

    /** The SDK's client class (its package and getRpc() locate the generated layer, Rpc). */
    Class<?> clientClass();

    Map<String, Boolean> capabilities();

    Map<String, String> notes();

    /**
     * For each capability this SDK version lacks, the SDK symbol whose absence makes it so,
     * {@code package.Class#member} (PROTOCOL.md "Capability audit").
     */
    Map<String, String> missing();

    /** {@code options} is the protocol's connect options object, or null. */
    void connect(String client, String address, String cliPath, Map<String, String> env, JsonNode options)
            throws Exception;

    /**
     * {@code options} is the protocol's session options object, or null when none were given;
     * {@code gitHubToken} the per-session token, or null when the command gave none.
     */
    String createSession(String client, String session, List<ToolSpec> tools, JsonNode options, String gitHubToken)
            throws Exception;

    String resumeSession(String client, String session, String sessionId, List<ToolSpec> tools, JsonNode options)
            throws Exception;

    void setTools(String session, List<ToolSpec> tools) throws Exception;

    long clearContext(String session, String prompt) throws Exception;

    /** {@code timeoutMs} is null when the command did not give one. */
    ObjectNode send(String session, String prompt, boolean wait, Long timeoutMs) throws Exception;

    void disconnect(String session) throws Exception;

    void stopClient(String client) throws Exception;

    /** The application's surface read from the SDK's config classes (PROTOCOL.md "Surface"). */
    ObjectNode surface();

    /**
     * The SDK config fields (by name) the next createSession / resumeSession sets on top of its
     * options; commands run one at a time, so the next one is the one carrying them.
     */
    void nextFields(JsonNode fields);

    /**
     * The handler names (the command's "surfaceHandlers", or null) the next createSession /
     * resumeSession on this thread registers do-nothing callbacks for (Surface.registerHandlers),
     * each reporting its calls for {@code session}.
     */
    void nextSurfaceHandlers(JsonNode names, String session);

    /**
     * The runtime-to-SDK handlers (the command's "handlers", or null) the next createSession /
     * resumeSession on this thread registers for {@code session} (Handlers).
     */
    void nextHandlers(JsonNode handlers, String session);

    /**
     * What the last createSession / resumeSession on this thread registered: {"handled",
     * "unhandled"} and the surface handlers it "kept" (the driver's own), or null.
     */
    ObjectNode takeHandlerAccount();

    /** The SDK's client object for a handle, whose getRpc() is the generated layer (Rpc.java). */
    Object clientObject(String client);

    /** The SDK's session object for a handle, whose getRpc() is the generated layer (Rpc.java). */
    Object sessionObject(String session);

    /** Stops every client still open (the driver is exiting). */
    void closeAll();
}
