package scenario

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sync"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v34"
)

// trackSteps records the running step and the checks made before it, for checking.
func (s *Scenario) trackSteps(sc *godog.ScenarioContext) {
	sc.StepContext().Before(func(ctx context.Context, st *godog.Step) (context.Context, error) {
		s.step = st
		s.stepChecks = len(s.Checked)
		return ctx, nil
	})
}

// checking binds step handlers so that a failed check (a Then step) is recorded and the
// scenario goes on: godog ends a scenario at its first failing step, which would let an
// expected failure hide every later check. The handler's error is kept in the Scenario and godog
// is told the step passed; the scenario's outcome lists every failure, and the harness matches
// each against the manifest. A Given or When step that fails still ends the scenario (what
// follows depends on it), and so does an unsupported Then step.
type checking struct {
	sc *godog.ScenarioContext
	s  *Scenario
}

func (c checking) Step(expr, stepFunc interface{}) {
	expr = phrase(expr)
	fn := reflect.ValueOf(stepFunc)
	errType := reflect.TypeOf((*error)(nil)).Elem()
	t := fn.Type()
	if t.NumOut() != 1 || t.Out(0) != errType {
		c.sc.Step(expr, stepFunc)
		return
	}
	c.sc.Step(expr, reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		out := fn.Call(args)
		err, _ := out[0].Interface().(error)
		st := c.s.step
		// A lost driver ends the scenario even in a Then step: every later check would only
		// repeat the loss.
		if err == nil || st == nil || st.Type != messages.PickleStepType_OUTCOME || errors.Is(err, godog.ErrSkip) || driver.EndsScenario(err) {
			return out
		}
		c.s.fail(st, err)
		return []reflect.Value{reflect.Zero(errType)}
	}).Interface())
}

// compiled holds each phrase's regexp, compiled once per run: godog compiles a string pattern
// at every binding, and the phrases are bound once per scenario (measured: 13% of the harness's
// CPU time in a run of two SDKs).
var compiled sync.Map

func phrase(expr interface{}) interface{} {
	s, ok := expr.(string)
	if !ok {
		return expr
	}
	if re, ok := compiled.Load(s); ok {
		return re
	}
	re, _ := compiled.LoadOrStore(s, regexp.MustCompile(s))
	return re
}

// fail records a failed check with the payload checks its step made.
func (s *Scenario) fail(st *godog.Step, err error) {
	var checked []report.Check
	if s.stepChecks <= len(s.Checked) {
		checked = append(checked, s.Checked[s.stepChecks:]...)
	}
	f := suite.Failure{Step: st.Text, Message: fmt.Sprintf("step %q: %v", st.Text, err), Checked: checked}
	var list *suite.Divergences
	if errors.As(err, &list) {
		for _, it := range list.Items {
			f.Items = append(f.Items, fmt.Sprintf("step %q: %s", st.Text, it))
		}
	}
	s.failures = append(s.failures, f)
}
