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

// Every phrase stepNeeds declares is one register binds (a renamed phrase would silently lose
// its needs), and every capability named is a known one.
func TestStepNeedsNameBoundPhrases(t *testing.T) {
	bound := map[string]bool{}
	for _, s := range Vocabulary() {
		bound[s.Pattern] = true
	}
	require.NotEmpty(t, bound)
	for p, f := range stepNeeds {
		assert.True(t, bound[p], "stepNeeds names %s, which register does not bind", p)
		re := regexp.MustCompile(p)
		args := make([]string, re.NumSubexp())
		for i := range args {
			args[i] = "clears the context with \"x\""
		}
		for _, c := range f(args, [][]string{{"name", "isTerminal", "defer", "metadata", "skipPermission", "overridesBuiltInTool", "handler"},
			{"a", "true", "never", "{}", "true", "true", `clears the context with "x"`}}) {
			assert.True(t, knownCapability(c), "%s needs unknown capability %s", p, c)
		}
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
