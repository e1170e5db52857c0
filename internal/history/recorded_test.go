package history

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecordedNodeHistory builds the history of four real Node SDK versions from their recorded
// runs (testdata/recorded: two scenarios of `conformance history --sdk node`, kept as the
// versions wrote them) and checks that the real changes between them are found at the version
// that shipped them, with the field named:
//   - 1.0.9 shipped session.factory.listRuns dropping afterSeq, beforeSeq and limit (a regression
//     inside a scenario that already failed on 1.0.8), and in the same version stopped dropping
//     session.agent.list's includeBuiltInAgents and includePrompt (a fix);
//   - 1.0.11 fixed listRuns (the scenario passes);
//   - 1.0.13 replaced session.destroy by session.detach and sends supportedTaskKinds on connect,
//     with no status change (silent wire changes).
func TestRecordedNodeHistory(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("testdata", "recorded"))
	require.NoError(t, err)
	old, err := Read(filepath.Join(root, "history.json"))
	require.NoError(t, err)
	h := Build(old.Runs(root), nil, Options{SDK: old.SDK, Root: root})

	sweep := "every public session method carries the application's params and the runtime's result"
	handshake := "the SDK connects before anything else and creates a session"
	find := func(version, scenario string) Change {
		t.Helper()
		for _, v := range h.Versions {
			if v.Version != version {
				continue
			}
			for _, c := range v.Changes {
				if c.Scenario == scenario {
					return c
				}
			}
		}
		t.Fatalf("%s: no change of %q", version, scenario)
		return Change{}
	}
	joined := func(lines []string) string { return strings.Join(lines, "\n") }

	c := find("1.0.9", sweep)
	assert.Equal(t, Regression, c.Kind, "a check that passed on 1.0.8 fails on 1.0.9, though the scenario failed on both")
	assert.Contains(t, joined(c.NowFails), "session.factory.listRuns [all]: request #N /afterSeq: 996 was given, it arrived without it")
	assert.Contains(t, joined(c.NoLongerFails), "session.agent.list [all]: request #N /includeBuiltInAgents: true was given, it arrived without it")
	assert.Contains(t, c.Message, "now also fails: session.factory.listRuns")
	assert.Contains(t, c.Message, "no longer fails: session.agent.list")

	c = find("1.0.11", sweep)
	assert.Equal(t, Fix, c.Kind)
	assert.Contains(t, c.Message, "no longer fails: session.factory.listRuns [all]: request #N /afterSeq")

	c = find("1.0.13", handshake)
	assert.Equal(t, SilentWire, c.Kind)
	var wire []string
	for _, v := range h.Versions {
		if v.Version == "1.0.13" {
			for _, w := range v.Wire {
				wire = append(wire, w.Headline)
			}
		}
	}
	assert.Contains(t, wire, `connect gained supportedTaskKinds (["agent","client","shell"])`)
	assert.Contains(t, wire, "no longer sends session.destroy")
	assert.Contains(t, wire, "now sends session.detach")

	for _, v := range h.Versions[1:3] { // nothing else changed in the handshake before 1.0.13
		for _, c := range v.Changes {
			assert.NotEqual(t, handshake, c.Scenario, "%s: %+v", v.Version, c)
		}
	}
	for kind, n := range map[string]int{Regression: 1, Fix: 1, SilentWire: 1} {
		assert.Equal(t, n, h.Counts[kind], kind) // beside them, capabilities the drivers' hellos gained
	}
}
