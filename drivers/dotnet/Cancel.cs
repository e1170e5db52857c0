// The application cancels a call (PROTOCOL.md "The application cancels a call"): every SDK call
// that waits on the runtime takes a CancellationToken (CopilotClient.CreateSessionAsync and
// ResumeSessionAsync, CopilotSession.SendAsync and SendAndWaitAsync, each generated wrapper's
// last parameter), so the driver passes one cancelled after the command's cancelAfterMs, as an
// application does, and reports the OperationCanceledException it ends with as the cancellation.
using System.Text.Json.Nodes;

internal static class Cancel
{
    /// <summary>A source cancelled after the command's cancelAfterMs, or null when it gives none.</summary>
    public static CancellationTokenSource? After(JsonObject a) =>
        a["cancelAfterMs"] is JsonValue after && after.TryGetValue(out long ms)
            ? new CancellationTokenSource(TimeSpan.FromMilliseconds(ms))
            : null;

    /// <summary>Runs an SDK call with the command's token; its cancellation becomes a CancelledException.</summary>
    public static async Task<T> RunAsync<T>(JsonObject a, Func<CancellationToken, Task<T>> call)
    {
        using CancellationTokenSource? cancel = After(a);
        // When the token was cancelled, on this process's clock: the call's end is timed from it.
        long fired = 0;
        using CancellationTokenRegistration? mark = cancel?.Token.Register(() => Interlocked.CompareExchange(ref fired, System.Diagnostics.Stopwatch.GetTimestamp(), 0));
        try
        {
            return await call(cancel?.Token ?? CancellationToken.None).ConfigureAwait(false);
        }
        catch (OperationCanceledException ex) when (cancel is { IsCancellationRequested: true })
        {
            long at = Interlocked.Read(ref fired);
            long afterMs = at == 0 ? 0 : (long)System.Diagnostics.Stopwatch.GetElapsedTime(at).TotalMilliseconds;
            throw new CancelledException(ex, afterMs);
        }
    }
}
