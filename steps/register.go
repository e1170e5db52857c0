package steps

import (
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/cucumber/godog"
)

// register binds the step phrases. Each phrase is SDK-neutral; see features/README.md.
func (w *world) register(sc *godog.ScenarioContext) {
	// Given: the client and the tools.
	sc.Step(`^an SDK client connected to the runtime$`, w.connected)
	sc.Step(`^an SDK client that starts the runtime itself over stdio$`, w.connectedOverStdio)
	sc.Step(`^a tool "([^"]*)"$`, w.aTool)
	sc.Step(`^a tool "([^"]*)" with isTerminal (set to true|set to false|unset)$`, w.aToolWithIsTerminal)
	sc.Step(`^a tool "([^"]*)" that (.+)$`, w.aToolThat)
	sc.Step(`^the tools:$`, w.theTools)

	// When: what the application does through the SDK.
	sc.Step(`^(?:a|the) session is created with (?:the|these|no) tools$`, w.create)
	sc.Step(`^(?:a|the) session is created$`, w.create)
	sc.Step(`^(?:a|the) session is resumed with (?:the|these) tools$`, w.resume)
	sc.Step(`^the prompt "([^"]*)" is sent and the SDK waits for the reply$`, w.sendAndWait)

	// Then: what is on the wire.
	sc.Step(`^the first request is "([^"]*)"$`, w.firstRequestIs)
	sc.Step(`^the tool "([^"]*)" in the "([^"]*)" request has "([^"]*)" equal to (.+)$`, w.toolKeyEquals)
	sc.Step(`^the tool "([^"]*)" in the "([^"]*)" request has no key "([^"]*)"$`, w.toolHasNoKey)
	sc.Step(`^no key "([^"]*)" appears anywhere in the "([^"]*)" request$`, w.noKeyAnywhere)
	sc.Step(`^the "([^"]*)" request has "([^"]*)" equal to (.+)$`, w.requestKeyEquals)
	sc.Step(`^the "([^"]*)" request has no key "([^"]*)"$`, w.requestHasNoKey)
	sc.Step(`^the tools of the "([^"]*)" request equal the tools of the "([^"]*)" request$`, w.toolsEqual)
	sc.Step(`^the reply is "([^"]*)"$`, w.theReplyIs)
	sc.Step(`^the runtime was started with the flag "([^"]*)"$`, w.startedWithFlag)
}

// startedWithFlag checks the argv that a self-spawned runtime recorded when it started.
func (w *world) startedWithFlag(flag string) error {
	for _, e := range w.entries() {
		if e.Dir == transcript.Note && strings.HasPrefix(e.Text, "argv: ") {
			for _, a := range strings.Fields(strings.TrimPrefix(e.Text, "argv: ")) {
				if a == flag {
					return nil
				}
			}
			return fmt.Errorf("the runtime was started with %s, without %s", strings.TrimPrefix(e.Text, "argv: "), flag)
		}
	}
	return fmt.Errorf("no runtime was spawned by the SDK (no argv recorded)")
}
