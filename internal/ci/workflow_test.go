package ci

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

const workflow = "../../.github/workflows/conformance.yml"

// TestWorkflowsPassActionlint lints every workflow with actionlint (expressions, job graph, action
// inputs, and the shell of run: steps through shellcheck when it is installed).
func TestWorkflowsPassActionlint(t *testing.T) {
	files, err := filepath.Glob("../../.github/workflows/*.yml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	shellcheck, _ := exec.LookPath("shellcheck")
	if shellcheck == "" {
		t.Log("shellcheck not on PATH: run: scripts are not checked")
	}
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{Shellcheck: shellcheck})
	require.NoError(t, err)
	errs, err := l.LintFiles(files, nil)
	require.NoError(t, err)
	assert.Empty(t, errs, out.String())
}

// TestWorkflowSecuritySplit checks the split a reviewer of the pull-request mode expects: the
// workflow's default token is read-only, every job that runs SDK or harness code says
// contents: read and nothing more, no job uses a secret, checkouts keep no credentials, and the
// only job that may write checks out and runs nothing.
func TestWorkflowSecuritySplit(t *testing.T) {
	body, err := os.ReadFile(workflow)
	require.NoError(t, err)
	assert.NotContains(t, string(body), "secrets.", "no job of the workflow uses a secret")

	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Steps       []struct {
				Uses string         `yaml:"uses"`
				Run  string         `yaml:"run"`
				With map[string]any `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(body, &wf))
	assert.Equal(t, map[string]string{"contents": "read"}, wf.Permissions)

	writers := 0
	for name, job := range wf.Jobs {
		writes := false
		for _, v := range job.Permissions {
			writes = writes || v == "write"
		}
		for _, s := range job.Steps {
			if strings.HasPrefix(s.Uses, "actions/checkout@") {
				assert.Equal(t, false, s.With["persist-credentials"], "%s: a checkout keeps no git credentials", name)
			}
		}
		if !writes {
			if name != "plan" {
				assert.Equal(t, map[string]string{"contents": "read"}, job.Permissions, "%s: read-only token", name)
			}
			continue
		}
		writers++
		assert.Equal(t, "pr-comment", name, "only the comment job may write")
		assert.Equal(t, map[string]string{"pull-requests": "write"}, job.Permissions)
		for _, s := range job.Steps {
			assert.Empty(t, s.Run, "%s runs no shell", name)
			assert.False(t, strings.HasPrefix(s.Uses, "actions/checkout@"), "%s checks out nothing", name)
		}
	}
	assert.Equal(t, 1, writers)
}
