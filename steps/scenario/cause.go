package scenario

import (
	"fmt"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// A driver command that fails says why when the transcript shows an earlier request it failed
// because of (transcript.Cause: a request that named a session before its opening was answered,
// a runtime request the SDK never answered, a request the runtime still held), with that
// request's method, id and line, not only the command that failed.

// Mark is where a command begins: the seq its first entry will have.
func (s *Scenario) Mark() int {
	if s.Rec == nil {
		return 0
	}
	return s.Rec.Len() + 1
}

// Because adds to err, the failure of a command that began at since, the earlier request the
// scenario's transcript blames; err itself stays reachable (errors.Is / errors.As). Only the
// scenario's own transcript is read: a runtime the SDK spawned keeps its entries in a file of
// its own, numbered apart.
func (s *Scenario) Because(err error, since int) error {
	if err == nil || s.Rec == nil {
		return err
	}
	b, ok := transcript.Cause(s.Rec.Entries(), since)
	if !ok {
		return err
	}
	return fmt.Errorf("%w; caused by an earlier request: %s", err, b)
}
