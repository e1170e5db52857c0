package steps

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The order check names each request sent too early and the opening it ran ahead of, each with
// its line (seq) and id.
func TestNothingBeforeOpenedNamesTheRequests(t *testing.T) {
	rec := transcript.Memory()
	for _, f := range []string{
		`>{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"s1"}}`,
		`>{"jsonrpc":"2.0","id":2,"method":"session.skills.reload","params":{"sessionId":"s1"}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
		`>{"jsonrpc":"2.0","id":3,"method":"session.send","params":{"sessionId":"s1"}}`,
	} {
		dir := transcript.SDKToRuntime
		if f[0] == '<' {
			dir = transcript.RuntimeToSDK
		}
		rec.Frame("c1", dir, []byte(f[1:]))
	}
	w := &world{Scenario: &scenario.Scenario{Rec: rec}}
	err := w.nothingBeforeOpened("session.create")
	require.Error(t, err)
	assert.Equal(t, "session.skills.reload (seq 2, id 2) sent before its session.create (seq 1, id 1) was answered (seq 3): the runtime does not know the session yet", err.Error())
}
