package conformance.driver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The application cancels a call (PROTOCOL.md "The application cancels a call"): the SDK's calls
 * that wait on the runtime return a {@code CompletableFuture}, which the application waits on with
 * {@code get(ms, MILLISECONDS)} and then {@code cancel(true)}. Per thread: commands of several
 * scenarios run at once (driver.concurrent), each on a thread of its own.
 */
final class Cancel {
    private static final ThreadLocal<Long> NEXT = new ThreadLocal<>();

    private Cancel() {
    }

    /** Keeps the command's cancelAfterMs for the SDK call it makes (none when absent). */
    static void next(JsonNode args) {
        if (args != null && args.hasNonNull("cancelAfterMs")) {
            NEXT.set(args.get("cancelAfterMs").asLong());
        } else {
            NEXT.remove();
        }
    }

    /**
     * Waits for an SDK call as the application does: for good, or, when the command gave
     * cancelAfterMs, with {@code get(ms, MILLISECONDS)}, then {@code cancel(true)} on timeout. The
     * first call awaited takes the bound.
     */
    static <T> T await(Future<T> call) throws Exception {
        Long ms = NEXT.get();
        NEXT.remove();
        if (ms == null) {
            return call.get();
        }
        try {
            return call.get(ms, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // The call ends when the future is cancelled: timed from the timeout, on this
            // process's clock (afterCancelMs).
            long fired = System.nanoTime();
            call.cancel(true);
            throw new Failure.Cancelled(e, (System.nanoTime() - fired) / 1_000_000);
        } catch (CancellationException e) {
            throw new Failure.Cancelled(e, 0);
        }
    }
}
