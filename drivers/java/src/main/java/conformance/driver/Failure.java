package conformance.driver;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The two non-SDK outcomes a command can have, and the unwrapping of SDK errors. */
final class Failure {
    private Failure() {
    }

    /** The pinned SDK has no way to do what was asked: answered with outcome "unsupported". */
    static final class Unsupported extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unsupported(String reason) {
            super(reason);
        }
    }

    /** A driver bug or a bad command (unknown handle, missing argument): type "DriverError". */
    static final class DriverError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DriverError(String message) {
            super(message);
        }
    }

    /**
     * A call the application cancelled (cancelAfterMs) ended with Java's cancellation error (the
     * cause: TimeoutException, CancellationException): answered with "cancelled": true and
     * afterCancelMs, how long the call took to end after the timeout.
     */
    static final class Cancelled extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final long afterCancelMs;

        Cancelled(Throwable cause, long afterCancelMs) {
            super(cause);
            this.afterCancelMs = afterCancelMs;
        }
    }

    /**
     * Why an application cannot read the JSON-RPC code (or data) of an error the SDK raised
     * (capability error.rpc.code): the SDK's exception type is package-private and has no data.
     */
    static final String NO_RPC_CODE = "the Java SDK raises a JSON-RPC error as JsonRpcException, a package-private "
            + "final class (com.github.copilot.sdk.JsonRpcException in 0.3.0-java.2; "
            + "java/sdk/src/main/java/com/github/copilot/JsonRpcException.java:16 on upstream main), so an application "
            + "can neither catch it by type nor call its getCode(), and it keeps no data";

    /** The exception the SDK raised, without the future/executor wrappers around it. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof ExecutionException || t instanceof CompletionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    static String message(Throwable t) {
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    /** A batch outcome's error object: {"type", "message"}. */
    static ObjectNode errorObject(String type, String message) {
        ObjectNode e = Out.object();
        e.put("type", type);
        e.put("message", message);
        return e;
    }

    /** The error object of what the SDK raised, through reflection's and the futures' wrappers. */
    static ObjectNode errorObject(Throwable t) {
        Throwable cause = unwrap(t instanceof InvocationTargetException ite ? ite.getCause() : t);
        return errorObject(cause.getClass().getSimpleName(), message(cause));
    }
}
