package conformance.driver;

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
     * cause: TimeoutException, CancellationException): answered with "cancelled": true.
     */
    static final class Cancelled extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Cancelled(Throwable cause) {
            super(cause);
        }
    }

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
}
