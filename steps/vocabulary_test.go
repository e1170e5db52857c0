package steps

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The needs each phrase declares where it is bound name known capabilities, and the phrases
// known to need one declare it.
func TestStepNeedsNameBoundPhrases(t *testing.T) {
	declared := 0
	for _, s := range Vocabulary() {
		if s.Needs == nil {
			continue
		}
		declared++
		re := regexp.MustCompile(s.Pattern)
		args := make([]string, re.NumSubexp())
		for i := range args {
			args[i] = "clears the context with \"x\""
		}
		for _, c := range s.Needs(args, [][]string{{"name", "isTerminal", "defer", "metadata", "skipPermission", "overridesBuiltInTool", "handler"},
			{"a", "true", "never", "{}", "true", "true", `clears the context with "x"`}}) {
			assert.True(t, knownCapability(c), "%s needs unknown capability %s", s.Pattern, c)
		}
	}
	assert.GreaterOrEqual(t, declared, 15, "the phrases that need a capability declare it where they are bound")
	needed := map[string]bool{}
	for _, s := range Vocabulary() {
		if s.Needs != nil {
			for _, c := range s.Needs([]string{"", "set to true"}, nil) {
				needed[c] = true
			}
		}
	}
	for _, c := range []string{"transport.stdio", "session.resume", "session.setTools", "events", "rpc.generated", "tool.isTerminal"} {
		assert.True(t, needed[c], "no bound phrase declares %s", c)
	}
}

// drivers/PROTOCOL.md's capability table lists exactly suite.Capabilities.
func TestProtocolCapabilityTableMatchesSuite(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "drivers", "PROTOCOL.md"))
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(doc), "| capability | meaning |")
	require.True(t, ok, "PROTOCOL.md has a capability table")
	var listed []string
	for _, line := range strings.Split(table, "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		first := strings.Split(line, "|")[1]
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(first, -1) {
			listed = append(listed, m[1])
		}
	}
	assert.ElementsMatch(t, suite.Capabilities, listed)
}
