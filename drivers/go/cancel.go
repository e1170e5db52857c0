package main

import (
	"context"
	"errors"
	"time"
)

// The application cancels a call (PROTOCOL.md "The application cancels a call"): every SDK
// call that waits on the runtime takes a context.Context, so the driver passes one with the
// deadline an application would set, and reports the context's error as the cancellation.

// cancelAfter is ctx with a deadline ms from now, or ctx itself when ms is nil.
func cancelAfter(ctx context.Context, ms *int64) (context.Context, context.CancelFunc) {
	if ms == nil {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, time.Duration(*ms)*time.Millisecond)
}

// cancelledError is an SDK call that ended with the context's cancellation (errors.Is
// context.DeadlineExceeded or context.Canceled), answered with "cancelled": true.
type cancelledError struct{ err error }

func (c cancelledError) Error() string { return c.err.Error() }

// cancelledIf marks err as the cancellation when the application set a deadline (ms) and the
// SDK's error wraps the context's.
func cancelledIf(err error, ms *int64) error {
	if ms != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return cancelledError{err}
	}
	return err
}
