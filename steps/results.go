package steps

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/steps/jsondiff"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// Tool results of every kind (drivers/PROTOCOL.md "Tool results"): the handler returns a typed
// value or a whole result object, and the features read the SDK's
// session.tools.handlePendingToolCall answer.

func (w *world) registerResults(sc scenario.Binder) {
	sc.Step(`^a tool "([^"]*)" whose handler returns the typed value (\{.*\})$`, w.toolReturnsValue)
	sc.Step(`^a tool "([^"]*)" whose handler returns the result object (\{.*\})$`, w.toolReturnsResult)
	sc.Step(`^the SDK answered the call to "([^"]*)" with the typed value (\{.*\})$`, w.answeredWithValue)
	sc.Step(`^the SDK answered the call to "([^"]*)" with every field of the result object$`, w.answeredWithEveryField)
	sc.Step(`^the SDK's answer to the call to "([^"]*)" has "([^"]*)" equal to (.+)$`, w.answerKeyEquals)
	sc.Step(`^the SDK answered the call to "([^"]*)" with exactly (\{.*\})$`, w.answeredExactly)
}

func (w *world) toolReturnsValue(name, value string) error {
	if err := w.Needs("tool.result.value"); err != nil {
		return err
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		return fmt.Errorf("the typed value is not a JSON object: %w", err)
	}
	for _, k := range []string{"id", "at", "status", "count", "tags"} {
		if _, ok := v[k]; !ok {
			return fmt.Errorf("the typed value needs %q (a record is id, at, status, count, tags)", k)
		}
	}
	w.tool(name)["handler"] = map[string]any{"action": "returnValue", "value": v}
	return nil
}

func (w *world) toolReturnsResult(name, value string) error {
	var v map[string]any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		return fmt.Errorf("the result object is not a JSON object: %w", err)
	}
	if err := w.Needs(scenario.ResultNeeds(v)...); err != nil {
		return err
	}
	w.tool(name)["handler"] = map[string]any{"action": "returnResult", "result": v}
	return nil
}

// answeredWithValue checks the typed value reached the runtime as JSON text with every field:
// the UUID as its string, the date-time as the same instant, the enum as its value.
func (w *world) answeredWithValue(tool, value string) error {
	call, err := w.lastCall(tool)
	if err != nil {
		return err
	}
	shape, ok, text := resultShape(call.answer)
	w.Observe("typed value shape", shape)
	if !ok {
		return fmt.Errorf("the SDK answered the call to %q as a failure (%s: %q), want the typed value", tool, shape, text)
	}
	var want, got map[string]any
	if err := json.Unmarshal([]byte(value), &want); err != nil {
		return fmt.Errorf("the expected value is not JSON: %w", err)
	}
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		return fmt.Errorf("the SDK answered the call to %q with %q, not the value as JSON", tool, text)
	}
	w.Observe("typed value text", text)
	var problems []string
	for _, k := range sortedMapKeys(want) {
		g, has := got[k]
		switch {
		case !has:
			problems = append(problems, fmt.Sprintf("%s is missing", k))
		case k == "at":
			if !jsondiff.SameInstant(fmt.Sprint(want[k]), fmt.Sprint(g)) {
				problems = append(problems, fmt.Sprintf("at: want the instant %v, got %v", want[k], g))
			}
		case k == "id":
			if !strings.EqualFold(fmt.Sprint(want[k]), fmt.Sprint(g)) {
				problems = append(problems, fmt.Sprintf("id: want %v, got %v", want[k], g))
			}
		case show(want[k]) != show(g):
			problems = append(problems, fmt.Sprintf("%s: want %s, got %s", k, show(want[k]), show(g)))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the typed value the SDK sent for %q differs: %s (text %s)", tool, strings.Join(problems, "; "), text)
	}
	return nil
}

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// answeredWithEveryField checks that the answer's result object carries every field the
// handler's result object gave, with the same value: nothing the application gave is dropped.
func (w *world) answeredWithEveryField(tool string) error {
	h, _ := w.tool(tool)["handler"].(map[string]any)
	given, ok := h["result"].(map[string]any)
	if !ok {
		return fmt.Errorf("the tool %q has no handler returning a result object", tool)
	}
	call, err := w.lastCall(tool)
	if err != nil {
		return err
	}
	res, ok := call.answer["result"].(map[string]any)
	if !ok {
		shape, _, text := resultShape(call.answer)
		return fmt.Errorf("the SDK answered the call to %q with %s %q, not a result object", tool, shape, text)
	}
	w.Check("session.tools.handlePendingToolCall", "result")
	var problems []string
	for _, k := range sortedMapKeys(given) {
		g, has := res[k]
		if !has {
			problems = append(problems, fmt.Sprintf("result.%s was dropped (the application gave %s)", k, show(given[k])))
			continue
		}
		if show(given[k]) != show(g) {
			problems = append(problems, fmt.Sprintf("result.%s: the application gave %s, the SDK sent %s", k, show(given[k]), show(g)))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the SDK's answer to %q lost what the application returned: %s", tool, strings.Join(problems, "; "))
	}
	return nil
}

func (w *world) answerKeyEquals(tool, path, want string) error {
	call, err := w.lastCall(tool)
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(call.answer)
	v, _ := canon.Decode(raw)
	w.Check("session.tools.handlePendingToolCall", path)
	got, ok := canon.Get(v, path)
	if !ok {
		return fmt.Errorf("the answer to %q has no %s (answer %s)", tool, path, canon.Show(v, true))
	}
	return compare("the answer to "+tool+" "+path, got, canon.Value(got), want)
}

// answeredExactly compares the SDK's whole handlePendingToolCall params, apart from the sessionId
// and requestId that name the call, with the answer the application's intent gives: every SDK is
// held to the same payload, so two SDKs answering the same intent differently cannot both pass.
// Both sides go through canon.ToolAnswer (a bare string is the success text; a JSON text is
// compared as its value) and canon.Value (ids and timestamps normalized); anything else, a key
// more or less, a top-level error instead of a failure result, is a jsondiff.Difference named by path.
func (w *world) answeredExactly(tool, want string) error {
	call, err := w.lastCall(tool)
	if err != nil {
		return err
	}
	wantV, err := canon.Decode([]byte(want))
	if err != nil {
		return fmt.Errorf("the expected answer is not JSON: %w", err)
	}
	raw, _ := json.Marshal(call.answer)
	gotV, _ := canon.Decode(raw)
	if m, ok := gotV.(map[string]any); ok {
		delete(m, "sessionId")
		delete(m, "requestId")
	}
	w.Check(canon.ToolAnswerMethod, report.WholeParams)
	got := canon.Value(canon.ToolAnswer(gotV))
	diffs := canon.Diff(map[string]any{"want": canon.Value(canon.ToolAnswer(wantV)), "sent": got})
	if len(diffs) == 0 {
		return nil
	}
	var problems []string
	for _, d := range diffs {
		path := d.Path
		if path == "" {
			path = "(whole params)"
		}
		problems = append(problems, fmt.Sprintf("%s: want %s, sent %s", path, d.Values["want"], d.Values["sent"]))
	}
	return fmt.Errorf("the SDK's session.tools.handlePendingToolCall for %q differs from the application's answer: %s (params %s)",
		tool, strings.Join(problems, "; "), canon.Show(gotV, true))
}
