package surfacehandlers

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/stretchr/testify/assert"
)

// A request naming a session before its create/resume was answered is found in every opening
// the handler probe makes, not only the last one.
func TestRequestsBeforeOpenedFindsEveryEarlyRequest(t *testing.T) {
	create := func(id, sid string) string {
		return `>{"jsonrpc":"2.0","id":` + id + `,"method":"session.create","params":{"sessionId":"` + sid + `"}}`
	}
	named := func(id, sid string) string {
		return `>{"jsonrpc":"2.0","id":` + id + `,"method":"session.options.update","params":{"sessionId":"` + sid + `"}}`
	}
	good := engineWith(create("1", "A"), okAnswer("1"), named("2", "A"), okAnswer("2"),
		create("3", "B"), okAnswer("3"), named("4", "B"), okAnswer("4"))
	assert.Empty(t, good.requestsBeforeOpened())
	bad := engineWith(create("1", "A"), okAnswer("1"), named("2", "A"), okAnswer("2"),
		create("3", "B"), named("4", "B"), okAnswer("3"), okAnswer("4"))
	problems := bad.requestsBeforeOpened()
	if assert.Len(t, problems, 1) {
		assert.Contains(t, problems[0], "session.options.update")
	}
}

// engineWith is an engine over a transcript of the SDK's (">") and the runtime's ("<") frames.
func engineWith(frames ...string) *engine {
	rec := transcript.Memory()
	for _, f := range frames {
		dir := transcript.SDKToRuntime
		if f[0] == '<' {
			dir = transcript.RuntimeToSDK
		}
		rec.Frame("c1", dir, []byte(f[1:]))
	}
	return &engine{Scenario: &scenario.Scenario{Rec: rec}}
}

func okAnswer(id string) string { return `<{"jsonrpc":"2.0","id":` + id + `,"result":{}}` }
