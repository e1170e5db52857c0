package steps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/copilot-sdk-conformance/conformance/steps/sweeps/events"
	"github.com/copilot-sdk-conformance/conformance/steps/sweeps/generated"
)

// register binds the step phrases. Each phrase is SDK-neutral; see features/README.md. A
// phrase that needs a capability says so where it is bound (needing): the plan then refuses a
// scenario that uses it without requiring it.
func (w *world) register(sc scenario.Binder) {
	// Given: the client and the tools.
	sc.Step(`^an SDK client connected to the runtime$`, w.connected)
	scenario.Needing(sc, scenario.Needs("transport.stdio")).Step(`^an SDK client that starts the runtime itself over stdio$`, w.connectedOverStdio)
	sc.Step(`^a tool "([^"]*)"$`, w.aTool)
	scenario.Needing(sc, isTerminalNeeds).Step(`^a tool "([^"]*)" with isTerminal (set to true|set to false|unset)$`, w.aToolWithIsTerminal)
	scenario.Needing(sc, func(a []string, _ [][]string) []string { return handlerNeeds(a[1]) }).Step(`^a tool "([^"]*)" that (.+)$`, w.aToolThat)
	scenario.Needing(sc, func(_ []string, t [][]string) []string { return tableNeeds(t) }).Step(`^the tools:$`, w.theTools)

	// When: what the application does through the SDK.
	sc.Step(`^(?:a|the) session is created with (?:the|these) tools$`, w.Create)
	sc.Step(`^(?:a|the) session is created with no tools$`, w.createWithoutTools)
	sc.Step(`^(?:a|the) session is created$`, w.Create)
	scenario.Needing(sc, scenario.Needs("session.gitHubToken")).Step(`^(?:a|the) session is created with the GitHub token "([^"]*)"$`, w.createWithToken)
	scenario.Needing(sc, scenario.Needs("session.resume")).Step(`^(?:a|the) session is resumed with (?:the|these) tools$`, w.resume)
	sc.Step(`^the prompt "([^"]*)" is sent and the SDK waits for the reply$`, w.SendAndWait)

	// Then: what is on the wire.
	sc.Step(`^the first request is "([^"]*)"$`, w.firstRequestIs)
	sc.Step(`^the tool "([^"]*)" in the "([^"]*)" request has "([^"]*)" equal to (.+)$`, w.toolKeyEquals)
	sc.Step(`^the tool "([^"]*)" in the "([^"]*)" request has no key "([^"]*)"$`, w.toolHasNoKey)
	sc.Step(`^no key "([^"]*)" appears anywhere in the "([^"]*)" request$`, w.noKeyAnywhere)
	sc.Step(`^the "([^"]*)" request has "([^"]*)" equal to (.+)$`, w.requestKeyEquals)
	sc.Step(`^the "([^"]*)" request has no key "([^"]*)"$`, w.requestHasNoKey)
	sc.Step(`^the session id the SDK reported is the "([^"]*)" of the "([^"]*)" request$`, w.reportedSessionID)
	sc.Step(`^the "([^"]*)" request carried the token "([^"]*)" at "([^"]*)", recorded only by its fingerprint$`, w.tokenRedacted)
	sc.Step(`^the tools of the "([^"]*)" request equal the tools of the "([^"]*)" request$`, w.toolsEqual)
	sc.Step(`^the reply is "([^"]*)"$`, w.theReplyIs)
	sc.Step(`^the runtime was started with the flag "([^"]*)"$`, w.startedWithFlag)

	// The scripted model and the runtime's answers.
	sc.Step(`^the model calls the tool "([^"]*)"$`, w.modelCalls)
	sc.Step(`^the model calls the tool "([^"]*)" with (\{.*\})$`, w.modelCallsWith)
	sc.Step(`^the model then replies "([^"]*)"$`, w.modelReplies)
	sc.Step(`^the model calls the tools ((?:"[^"]*"(?:, | and )?)+) at once$`, w.modelCallsTogether)
	sc.Step(`^the runtime rejects the next tool replacement with "([^"]*)"$`, w.rejectNextReplacement)
	sc.Step(`^the runtime takes (\d+) ms to answer each tool replacement$`, w.slowReplacements)

	// What the application does, and what the SDK raises.
	scenario.Needing(sc, replaceNeeds).Step(`^the tools are replaced with:$`, w.replaceTools)
	scenario.Needing(sc, scenario.Needs("session.setTools")).Step(`^the tools are replaced with no tools$`, w.replaceWithNoTools)
	scenario.Needing(sc, scenario.Needs("session.rpc.tools.set")).Step(`^the tools are replaced through the generated RPC with no tools$`, w.replaceThroughRPCWithNoTools)
	scenario.Needing(sc, scenario.Needs("session.rpc.tools.set", "session.rpc.tools.set.nil")).Step(`^the tools are replaced through the generated RPC with the language's nil list$`, w.replaceThroughRPCWithNil)
	scenario.Needing(sc, replaceNeeds).Step(`^the application tries to replace the tools with:$`, w.triesReplaceTools)
	scenario.Needing(sc, scenario.Needs("session.setTools")).Step(`^the tools are replaced (\d+) times at once$`, w.replaceConcurrently)
	scenario.Needing(sc, scenario.Needs("session.clearContext")).Step(`^the application tries to call clearContext with "([^"]*)" outside a tool call$`, w.triesClearContext)
	sc.Step(`^the SDK raised an error$`, w.sdkRaised)
	sc.Step(`^the SDK raised an error mentioning "([^"]*)"$`, w.sdkRaisedMentioning)

	// The turn's course and the tool calls, read from the recorded frames.
	sc.Step(`^the turn ended right after the tool "([^"]*)"$`, w.turnEndedAfter)
	sc.Step(`^the model went on after the tool "([^"]*)"$`, w.modelWentOnAfter)
	sc.Step(`^the SDK answered the call to "([^"]*)" as a (success|failure)$`, w.answeredAs)
	sc.Step(`^the SDK answered the call to "([^"]*)" with the text "([^"]*)"$`, w.answeredWithText)
	sc.Step(`^the SDK answered the call to "([^"]*)" with a failure mentioning "([^"]*)"$`, w.answeredWithErrorMentioning)
	sc.Step(`^the "([^"]*)" request was sent while the call to "([^"]*)" was in flight$`, w.requestDuringCall)
	sc.Step(`^the SDK answered the call to "([^"]*)" while the call to "([^"]*)" was pending$`, w.answeredWhilePending)
	sc.Step(`^the runtime rejected the "([^"]*)" request$`, w.runtimeRejected)
	sc.Step(`^the "([^"]*)" requests reached the runtime one at a time in the order they were made$`, w.replacementsSerializedFor)
	scenario.Needing(sc, scenario.Needs("events")).Step(`^the application received the event "([^"]*)" with "([^"]*)" equal to (.+)$`, w.applicationReceived)
	sc.Step(`^the handler "([^"]*)" served the call to "([^"]*)"$`, w.handlerServed)
	sc.Step(`^every request the SDK sent conforms to the runtime's published schema$`, w.conformsToSchema)
	generated.Register(sc, w.Scenario)
	events.Register(sc, w.Scenario)
	w.registerWire(sc)
	w.registerJSONRPC(sc)
}

// startedWithFlag checks the argv that a self-spawned runtime recorded when it started.
func (w *world) startedWithFlag(flag string) error {
	for _, e := range w.Entries() {
		if e.Kind == transcript.KindArgv {
			if slices.Contains(e.Argv, flag) {
				return nil
			}
			return fmt.Errorf("the runtime was started with %s, without %s", strings.Join(e.Argv, " "), flag)
		}
	}
	return fmt.Errorf("no runtime was spawned by the SDK (no argv recorded)")
}

func (w *world) replacementsSerializedFor(method string) error {
	if method != "session.tools.set" {
		return fmt.Errorf("only session.tools.set replacements are checked for ordering, not %s", method)
	}
	return w.replacementsSerialized()
}
