// Package declared is the SDK's application surface as its driver declares it (the driver's
// surface command), shared by the sweeps over it (surface handlers, reached handlers, the order
// sweep); no sweep itself.
package declared

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// Entries is the SDK's application surface as its driver declares it (the surface command).
func Entries(w *scenario.Scenario) ([]surface.Entry, error) {
	raw, err := w.Do("surface", map[string]any{})
	if err != nil {
		return nil, err
	}
	var inv struct {
		Entries []surface.Entry `json:"entries"`
	}
	if err := json.Unmarshal(raw, &inv); err != nil {
		return nil, fmt.Errorf("the %s driver's surface answer: %w", w.T.SDK(), err)
	}
	if len(inv.Entries) == 0 {
		return nil, fmt.Errorf("the %s driver reported an empty surface", w.T.SDK())
	}
	return inv.Entries, nil
}

// Open creates (sessionID "") or resumes a session on client c with the named handlers
// registered and returns the create/resume request's params and the session's id.
func Open(w *scenario.Scenario, c, sessionID string, names []string) (map[string]any, string, error) {
	cmd, method := "createSession", "session.create"
	args := map[string]any{"tools": []any{}, "surfaceHandlers": append([]string{}, names...)}
	if sessionID != "" {
		cmd, method, args["sessionId"] = "resumeSession", "session.resume", sessionID
	}
	before := len(transcript.Requests(w.Rec.Entries(), method))
	r, err := w.Call(cmd, scenario.MergeHandle(args, c, fmt.Sprintf("h%d", len(w.Sessions)+1)))
	w.Sessions = append(w.Sessions, scenario.Session{Handle: args["session"].(string), Client: c})
	if err != nil {
		return nil, "", err
	}
	if r.Outcome == "unsupported" {
		return nil, "", &scenario.ErrUnsupported{Reason: r.ErrorText()}
	}
	if r.Outcome != "ok" {
		return nil, "", fmt.Errorf("%s", r.ErrorText())
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(r.Result, &res)
	reqs := transcript.Requests(w.Rec.Entries(), method)
	if len(reqs) <= before {
		return nil, "", fmt.Errorf("%s answered ok but no %s reached the runtime", cmd, method)
	}
	// Normalized (canon.Value): a generated id, such as the registration id a token provider
	// announces, is the same announcement every time.
	params, _ := canon.Value(surface.ParamsOf(reqs[len(reqs)-1].Params)).(map[string]any)
	return params, res.SessionID, nil
}
func AsUnsupported(err error, target **scenario.ErrUnsupported) bool {
	u, ok := err.(*scenario.ErrUnsupported)
	if ok {
		*target = u
	}
	return ok
}

// ChangedKeys are the top-level keys whose value in p differs from base, leaving out keys that
// differ between the two baselines too (generated ids).
func ChangedKeys(base, base2, p map[string]any) []string {
	var out []string
	for k, v := range p {
		if bv, ok := base[k]; ok && reflect.DeepEqual(bv, v) {
			continue
		}
		if b2, ok := base2[k]; ok && !reflect.DeepEqual(base[k], b2) {
			continue
		}
		out = append(out, k)
	}
	for k := range base {
		if _, ok := p[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
