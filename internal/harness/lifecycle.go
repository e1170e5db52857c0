package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/cucumber/godog"
)

// lifecycle is one scenario's life on one target, around the steps: it decides whether the
// scenario runs here (--scenario, the shard, a replay's recordings), opens its transcript,
// stops it early when the SDK is unavailable or lacks a capability the scenario requires,
// starts its recording runtime, and when the steps are done closes the runtime and the
// transcript and hands the outcome on. The steps only drive the SDK (suite.Scenario).
type lifecycle struct {
	lease      *lease
	root       string // the features folder
	nameFilter string

	feature, name string
	tags          []string
	rec           *transcript.Recorder
	path          string
	scenario      *suite.Scenario // set when the scenario reaches the SDK
	firstErr      error
	unsupported   string
	capability    string
	unavailable   string
	cancel        func() // ends the scenario's context (it ended)
}

var (
	errFiltered    = fmt.Errorf("filtered out: %w", godog.ErrSkip)
	errUnavailable = fmt.Errorf("the SDK is unavailable: %w", godog.ErrSkip)
)

// bind wraps the steps' hooks in the lifecycle's: begin before the steps' Before, end after
// their After (which stops the SDK's clients while the runtime still answers).
func (c *lifecycle) bind(sc *godog.ScenarioContext, steps func(*godog.ScenarioContext)) {
	sc.Before(c.begin)
	sc.StepContext().After(c.step)
	steps(sc)
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		c.end()
		return ctx, nil
	})
}

func (c *lifecycle) begin(ctx context.Context, s *godog.Scenario) (context.Context, error) {
	c.feature, c.name = relFeature(c.root, s.Uri), s.Name
	for _, t := range s.Tags {
		c.tags = append(c.tags, t.Name)
	}
	if c.nameFilter != "" && s.Name != c.nameFilter {
		return ctx, errFiltered // not part of this run: no result at all
	}
	if !c.lease.Selected(c.feature, c.name) {
		return ctx, errFiltered // another shard's, or not in the recorded run
	}
	// Every scenario gets a transcript, even one that never reaches an SDK, so every result
	// names a file that says what happened.
	rec, path, err := c.lease.Transcript(c.feature, c.name)
	if errors.Is(err, errInterrupted) {
		return ctx, err // not a result: the run accounts for it as interrupted
	}
	if err != nil {
		// A scenario that cannot open its transcript (too many open files, a full disk) still
		// ends in a result naming the cause, kept in memory instead of a file.
		rec, path = transcript.Memory(), ""
		c.firstErr = fmt.Errorf("the scenario's transcript could not be opened: %w", err)
	}
	c.rec, c.path = rec, path
	rec.Scenario(transcript.Header{Name: c.name, Feature: c.feature, SDK: c.lease.SDK(), SchemaChecked: c.lease.SchemaLoaded()})
	if c.firstErr != nil {
		rec.Notef("", "%v", c.firstErr)
		return ctx, c.firstErr
	}
	if why := c.lease.Unavailable(); why != "" {
		rec.Unavailable(why)
		c.unavailable = why
		return ctx, errUnavailable
	}
	for _, tag := range s.Tags {
		capability, ok := strings.CutPrefix(tag.Name, "@requires.")
		if !ok {
			continue
		}
		if reason, note, lacking := suite.Lacks(c.lease, capability); lacking {
			rec.Lacks(capability, note, reason)
			c.unsupported, c.capability = reason, capability
			return ctx, &suite.ErrUnsupported{Reason: reason, Capability: capability}
		}
	}
	rt, err := c.lease.NewRuntime(ctx, rec)
	if err != nil {
		c.firstErr = fmt.Errorf("runtime: %w", err)
		return ctx, c.firstErr
	}
	addr, err := rt.Listen("127.0.0.1:0")
	if err != nil {
		c.firstErr = fmt.Errorf("recording runtime: %w", err)
		return ctx, c.firstErr
	}
	rec.Notef("", "recording runtime listening on %s", addr)
	ctx, cancel := context.WithCancelCause(ctx)
	c.cancel = func() { cancel(errors.New("the scenario ended")) }
	floor := c.lease.floor
	if floor == 0 {
		floor = suite.Floor(c.lease.CommandTimeout())
	}
	budget := suite.NewBudget(floor, func(why string) {
		// Whatever the steps wait on returns at once: anything watching ctx (a command in
		// flight, with why as the cause), then the driver's commands (killed) and the
		// runtime's calls to the SDK (its connection closes).
		rec.Notef("", "%s; the driver is killed", why)
		cancel(errors.New(why))
		c.lease.hangUp(why)
	})
	c.scenario = &suite.Scenario{Feature: c.feature, Name: c.name, Rec: rec, Runtime: rt, Addr: addr, Budget: budget}
	c.lease.setScenario(c.scenario)
	return ctx, nil
}

// step keeps the first thing that ended the scenario: an unsupported step, an undefined one or
// a failed Given or When step (a failed check does not end it: the steps record those).
func (c *lifecycle) step(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
	if c.firstErr == nil && c.unsupported == "" && c.unavailable == "" {
		var un *suite.ErrUnsupported
		var ua *suite.ErrUnavailable
		switch {
		case errors.As(err, &un):
			c.unsupported, c.capability = un.Reason, un.Capability
		case errors.As(err, &ua):
			c.unavailable = ua.Reason
			c.rec.Unavailable(ua.Reason)
		case status == godog.StepUndefined:
			c.firstErr = fmt.Errorf("step %q is not defined", st.Text)
		case err != nil && !errors.Is(err, godog.ErrSkip):
			c.firstErr = fmt.Errorf("step %q: %w", st.Text, err)
		}
	}
	return ctx, nil
}

// end closes what begin opened and hands the outcome on; a scenario filtered out has none.
func (c *lifecycle) end() {
	defer c.lease.setScenario(nil)
	if c.rec == nil {
		return
	}
	o := suite.Outcome{Feature: c.feature, Scenario: c.name, Unsupported: c.unsupported,
		Unavailable: c.unavailable, Capability: c.capability, Transcript: c.path, Tags: c.tags}
	// Every failure, in order: the checks that failed (the steps record them and go on), the
	// step that ended the scenario, a fault found after the steps.
	add := func(err error) {
		if err != nil {
			o.Failures = append(o.Failures, suite.Failure{Message: err.Error(), Checked: o.Checked})
		}
	}
	if s := c.scenario; s != nil {
		s.Budget.Stop()
		c.cancel()
		o.Checked, o.Observations = s.Checked, s.Observations
		o.Failures = append(o.Failures, s.Failures...)
		if why := s.Budget.Expired(); why != "" && !strings.Contains(fmt.Sprint(c.firstErr), why) {
			add(fmt.Errorf("%s (the driver stopped answering or kept the scenario waiting; it was killed)", why))
		}
		add(c.firstErr)
		if o.Unsupported == "" && o.Unavailable == "" {
			add(s.Err)
		}
		s.Runtime.Close()
	} else {
		add(c.firstErr)
	}
	o.SchemaViolations = transcript.Violations(c.rec.Entries())
	c.rec.Notef("", "scenario ended")
	if err := c.rec.Close(); err != nil {
		add(fmt.Errorf("writing the transcript: %w", err))
	}
	// An unsupported step after a failed check: the failures stand (they were observed).
	if len(o.Failures) > 0 {
		o.Unsupported, o.Capability = "", ""
	}
	o.Err = joinFailures(o.Failures)
	c.lease.Finished(o)
}

// joinFailures is the scenario's error: its one failure, or every failure numbered.
func joinFailures(fs []suite.Failure) error {
	switch len(fs) {
	case 0:
		return nil
	case 1:
		return errors.New(fs[0].Message)
	}
	msgs := make([]string, len(fs))
	for i, f := range fs {
		msgs[i] = fmt.Sprintf("%d. %s", i+1, f.Message)
	}
	return fmt.Errorf("%d steps failed:\n%s", len(fs), strings.Join(msgs, "\n"))
}

func relFeature(root, uri string) string {
	if rel, err := filepath.Rel(root, uri); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(uri)
}
