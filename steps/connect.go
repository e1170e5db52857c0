package steps

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/cucumber/godog"
)

// Connect and handshake options (drivers/PROTOCOL.md "Connect options").

func (w *world) registerConnect(sc scenario.Binder) {
	sc.Step(`^an SDK client connected to the runtime with the connect options:$`, w.connectedWithOptions)
	sc.Step(`^the runtime predates the connect handshake$`, w.legacyHandshake)
	sc.Step(`^the first requests are (.+)$`, w.firstRequestsAre)
}

func (w *world) connectedWithOptions(table *godog.Table) error {
	pairs, err := optionsTable(table)
	if err != nil {
		return err
	}
	opts := map[string]any{}
	for name, value := range pairs {
		if err := w.Needs("connect.option." + name); err != nil {
			return err
		}
		var v any
		if err := json.Unmarshal([]byte(value), &v); err != nil {
			return fmt.Errorf("the value of connect option %q is not JSON: %s", name, value)
		}
		opts[name] = v
	}
	if tok, ok := opts["connectionToken"].(string); ok {
		if k, keeps := w.RT.(suite.TokenKeeper); keeps {
			if err := k.ExpectToken(tok); err != nil {
				return err
			}
		}
	}
	c := fmt.Sprintf("c%d", len(w.Clients)+w.Stopped+1)
	if _, err := w.Do("connect", map[string]any{"client": c, "address": w.Addr, "options": opts}); err != nil {
		return err
	}
	w.Clients = append(w.Clients, c)
	return nil
}

func (w *world) legacyHandshake() error {
	rt, err := w.StandIn("runtime.script.legacyHandshake")
	if err != nil {
		return err
	}
	rt.SetLegacyHandshake()
	return nil
}

// firstRequestsAre checks the first requests in order, from a list like "connect", "ping".
func (w *world) firstRequestsAre(list string) error {
	var want []string
	for _, m := range strings.Split(list, ",") {
		want = append(want, strings.Trim(strings.TrimSpace(m), `"`))
	}
	var got []string
	for _, r := range transcript.Requests(w.Entries(), "") {
		got = append(got, r.Method)
	}
	if len(got) < len(want) || strings.Join(got[:len(want)], ",") != strings.Join(want, ",") {
		return fmt.Errorf("the first requests are %s, want %s", strings.Join(got[:min(len(got), len(want)+1)], ", "), strings.Join(want, ", "))
	}
	return nil
}
