package main

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// The application cancels a call (PROTOCOL.md "The application cancels a call"): every SDK
// call that waits on the runtime takes a context.Context, so the driver passes one with the
// deadline an application would set, and reports the context's error as the cancellation, with
// how long the call took to end after the context was done (afterCancelMs, on this process's
// clock: a loaded machine that runs the driver late stretches both ends alike).

// cancelClock is when the call's context was done, recorded by a watcher on it.
type cancelClock struct{ done atomic.Int64 } // monotonic nanoseconds since start; 0: not yet

type cancelClockKey struct{}

var clockStart = time.Now()

// cancelAfter is ctx with a deadline ms from now and a watcher of when it is done, or ctx
// itself when ms is nil.
func cancelAfter(ctx context.Context, ms *int64) (context.Context, context.CancelFunc) {
	if ms == nil {
		return ctx, func() {}
	}
	clock := &cancelClock{}
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, cancelClockKey{}, clock), time.Duration(*ms)*time.Millisecond)
	stop := context.AfterFunc(ctx, func() { clock.done.CompareAndSwap(0, int64(time.Since(clockStart))) })
	return ctx, func() { stop(); cancel() }
}

// cancelledError is an SDK call that ended with the context's cancellation (errors.Is
// context.DeadlineExceeded or context.Canceled), answered with "cancelled": true.
type cancelledError struct {
	err         error
	afterCancel time.Duration
}

func (c cancelledError) Error() string { return c.err.Error() }

// cancelledIf marks err as the cancellation when the application set a deadline (ms) and the
// SDK's error wraps the context's, timing the end from when ctx was done (0 when the SDK
// returned before the watcher ran: it ended at once).
func cancelledIf(ctx context.Context, err error, ms *int64) error {
	if ms == nil || !(errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return err
	}
	ended := time.Since(clockStart)
	var after time.Duration
	if clock, ok := ctx.Value(cancelClockKey{}).(*cancelClock); ok {
		if done := time.Duration(clock.done.Load()); done > 0 && ended > done {
			after = ended - done
		}
	}
	return cancelledError{err: err, afterCancel: after}
}
