package ci

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// The pull-request mode end to end, without GitHub: the workflow's own scripts (its run: steps,
// read from conformance.yml) run in bash as a runner runs them (bash -e -o pipefail), on two
// local source trees (a git repository with a base and a head commit) and on a recorded pair of
// runs in place of the pr-run jobs' artifacts. The pair is testdata/pr: `conformance run --shard
// 1/1 --sdk go --sdk-version go=V features/tools/{is_terminal,tool_definition,
// create_resume_parity}.feature` of the published Go SDK v1.0.9 (base) and v1.0.14 (head),
// which gained tool.isTerminal and four other capabilities and sends connect's
// supportedTaskKinds and session.detach where v1.0.9 sent session.destroy (coverage and the
// surface reference left out of results.json to keep it small; merge and diff do not read them). Recorded, not run here: preparing and running an SDK twice takes
// minutes, and what the pull-request jobs add to a run is the plan, the merge, the diff and the
// comment, which this test runs as the workflow has them.

type step struct {
	Name string            `yaml:"name"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	Dir  string            `yaml:"working-directory"`
}

func steps(t *testing.T) map[string]map[string]step {
	body, err := os.ReadFile(workflow)
	require.NoError(t, err)
	var wf struct {
		Jobs map[string]struct {
			Steps []step `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(body, &wf))
	out := map[string]map[string]step{}
	for name, j := range wf.Jobs {
		out[name] = map[string]step{}
		for _, s := range j.Steps {
			out[name][s.Name] = s
		}
	}
	return out
}

// runner is one job's machine: a workspace, the files GitHub hands a step, and the harness.
type runner struct {
	t                  *testing.T
	ws, temp           string
	output, summary    string
	harness, harnessWD string
}

func newRunner(t *testing.T, harness string) *runner {
	ws := t.TempDir()
	r := &runner{t: t, ws: ws, temp: filepath.Join(ws, "_temp"), output: filepath.Join(ws, "_output"), summary: filepath.Join(ws, "_summary"),
		harness: harness, harnessWD: filepath.Join(ws, "harness")}
	for _, d := range []string{r.temp, r.harnessWD} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	// The workflow checks the harness out into harness/ and builds it there; here it is built
	// once, and harness/ holds what the harness reads of its checkout (the recipes).
	require.NoError(t, os.Symlink(harness, filepath.Join(r.harnessWD, "conformance")))
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	for _, d := range []string{"fixtures", "drivers"} {
		require.NoError(t, os.Symlink(filepath.Join(root, d), filepath.Join(r.harnessWD, d)))
	}
	return r
}

// run runs one step's script with its literal env values and the ones given (for ${{ }}
// expressions); it returns the exit status and the output.
func (r *runner) run(s step, env map[string]string) (int, string) {
	r.t.Helper()
	require.NotEmpty(r.t, s.Run, "the workflow has the step")
	script := filepath.Join(r.temp, "step.sh")
	require.NoError(r.t, os.WriteFile(script, []byte(s.Run), 0o644))
	cmd := exec.Command("bash", "--noprofile", "--norc", "-e", "-o", "pipefail", script)
	cmd.Dir = r.ws
	if s.Dir == "harness" {
		cmd.Dir = r.harnessWD
	}
	cmd.Env = append(os.Environ(), "GITHUB_WORKSPACE="+r.ws, "RUNNER_TEMP="+r.temp, "GITHUB_OUTPUT="+r.output,
		"GITHUB_STEP_SUMMARY="+r.summary, "HARNESS="+r.harness)
	for k, v := range s.Env {
		if !strings.Contains(v, "${{") {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	require.NoError(r.t, err, string(out))
	return 0, string(out)
}

func buildHarness(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "conformance")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/conformance").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return strings.TrimSpace(string(out))
}

// The plan job finds the SDKs a pull request touches from the two source trees, by each
// recipe's folder in the monorepo.
func TestPullRequestPlanFindsTheTouchedSDKs(t *testing.T) {
	wf := steps(t)
	r := newRunner(t, buildHarness(t))
	sdk := filepath.Join(r.ws, "sdk")
	require.NoError(t, os.MkdirAll(filepath.Join(sdk, "go"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(sdk, "nodejs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sdk, "go", "types.go"), []byte("package copilot\n\ntype Tool struct{ Name string }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sdk, "nodejs", "index.ts"), []byte("export {}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sdk, "README.md"), []byte("sdk\n"), 0o644))
	git(t, sdk, "init", "-q")
	git(t, sdk, "add", "-A")
	git(t, sdk, "commit", "-qm", "base")
	base := git(t, sdk, "rev-parse", "HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(sdk, "go", "types.go"), []byte("package copilot\n\ntype Tool struct{ Name string; IsTerminal bool }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sdk, "README.md"), []byte("sdk, with isTerminal\n"), 0o644))
	git(t, sdk, "commit", "-qam", "head")
	head := git(t, sdk, "rev-parse", "HEAD")

	code, out := r.run(wf["plan"]["The harness's SDKs"], nil)
	require.Equal(t, 0, code, out)
	code, out = r.run(wf["plan"]["SDKs the pull request touches"], map[string]string{"SDKS": "", "PR_MODE": "true", "BASE_SHA": base, "HEAD_SHA": head})
	require.Equal(t, 0, code, out)
	got, err := os.ReadFile(r.output)
	require.NoError(t, err)
	assert.Equal(t, "sdks=go\nbase="+base+"\nhead="+head+"\n", string(got), "go/ changed; the root README is no SDK's")
}

// The diff job on the recorded pair: the merge of each side, the diff, the comment within its
// budget, and the job's exit status, as the workflow's scripts do them.
func TestPullRequestDiffAndComment(t *testing.T) {
	wf := steps(t)
	harness := buildHarness(t)
	diffStep, exitStep := wf["pr-diff"]["Merge the base and the head, diff them"], wf["pr-diff"]["Exit as conformance diff did"]
	require.Equal(t, "60000", diffStep.Env["COMMENT_BUDGET"], "the budget the workflow gives the comment")
	const runURL = "https://github.example/o/r/actions/runs/7"
	// setup lays the recorded runs out as the pr-run jobs' artifacts are downloaded.
	setup := func(base, head string) *runner {
		r := newRunner(t, harness)
		for side, from := range map[string]string{"base": base, "head": head} {
			require.NoError(t, os.CopyFS(filepath.Join(r.ws, "runs", "conformance-pr-"+side+"-shard-1"), os.DirFS(filepath.Join("testdata", "pr", from))))
		}
		return r
	}
	env := map[string]string{"SHARDS": "1", "SDKS": "go", "BASE_SHA": "9c91ad850aaaa", "HEAD_SHA": "4e95deee5bbbb", "RUN_URL": runURL}
	read := func(r *runner, p string) string {
		b, err := os.ReadFile(filepath.Join(r.ws, p))
		require.NoError(t, err)
		return string(b)
	}

	t.Run("the pull request gains isTerminal: the comment says so first, the job passes", func(t *testing.T) {
		r := setup("base", "head")
		code, out := r.run(diffStep, env)
		require.Equal(t, 0, code, out)
		comment := read(r, "report/comment.md")
		assert.LessOrEqual(t, len(comment), 60000)
		assert.True(t, strings.HasPrefix(comment, "### Conformance: head 4e95deee5b against base 9c91ad850a (SDKs: go)\n\n**9 now supported, 5 payload changes (scenario × SDK)**\n"), comment)
		for _, want := range []string{
			"#### COMPARED (1; base → candidate)", "  go  v1.0.9 (go:github.com/github/copilot-sdk/go@v1.0.9) → v1.0.14 (go:github.com/github/copilot-sdk/go@v1.0.14)",
			"#### CAPABILITIES (1; the driver's hello)", "  go  gained connect.option.clientInfo, handler.hooks, rpc.handlers, session.rpc.tools.set, tool.isTerminal",
			"#### NOW SUPPORTED (9; unsupported → passed)", `tools/is_terminal.feature: a terminal tool is sent as "isTerminal": true on session.create`,
			"#### PAYLOAD CHANGES BY FIELD (3; across SDKs)", `  connect supportedTaskKinds: now sent by go (5 scenarios; ["agent","client","shell"])`,
			"  session.detach (request): now sent by go (5 scenarios)",
		} {
			assert.Contains(t, comment, want)
		}
		assert.NotContains(t, comment, "Cut to stay")
		assert.Equal(t, "0\n", read(r, "report/diff-exit-code"))
		assert.Equal(t, comment, read(r, "_summary"), "the job summary shows the comment")
		assert.Contains(t, read(r, "report/diff.txt"), "CAPABILITIES (1; the driver's hello)")
		code, out = r.run(exitStep, nil)
		assert.Equal(t, 0, code, out)
	})

	t.Run("the reverse loses isTerminal: a regression, the job fails", func(t *testing.T) {
		r := setup("head", "base")
		code, out := r.run(diffStep, env)
		require.Equal(t, 0, code, "the step records the diff's status; the exit step applies it: %s", out)
		comment := read(r, "report/comment.md")
		assert.Contains(t, comment, "**9 regressions, 5 payload changes (scenario × SDK)**")
		assert.Contains(t, comment, "  go  lost connect.option.clientInfo, handler.hooks, rpc.handlers, session.rpc.tools.set, tool.isTerminal")
		assert.Contains(t, comment, "passed → unsupported: go SDK lacks capability tool.isTerminal")
		assert.Equal(t, "1\n", read(r, "report/diff-exit-code"))
		code, _ = r.run(exitStep, nil)
		assert.Equal(t, 1, code)
	})

	t.Run("a comment over its budget is cut from the least important end and says where the rest is", func(t *testing.T) {
		r := setup("head", "base")
		small := diffStep
		small.Env = map[string]string{}
		for k, v := range diffStep.Env {
			small.Env[k] = v
		}
		small.Env["COMMENT_BUDGET"] = "1500"
		code, out := r.run(small, env)
		require.Equal(t, 0, code, out)
		comment := read(r, "report/comment.md")
		assert.LessOrEqual(t, len(comment), 1500)
		assert.Contains(t, comment, "#### REGRESSIONS (", "the regressions are kept, as far as they fit")
		assert.Contains(t, comment, "_Cut to stay within 1500 bytes: regressions (")
		assert.Contains(t, comment, "The full diff: diff.txt in the artifact conformance-pr-report of "+runURL+"._")
		assert.Equal(t, "1\n", read(r, "report/diff-exit-code"))
	})

	t.Run("a head that fails a scenario: merged, diffed, a regression that names it", func(t *testing.T) {
		r := setup("base", "head")
		p := filepath.Join(r.ws, "runs", "conformance-pr-head-shard-1", "results.json")
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		var res map[string]any
		require.NoError(t, json.Unmarshal(b, &res))
		first := res["results"].([]any)[0].(map[string]any)
		first["status"], first["message"] = "failed", "2 steps failed:\n1. step \"the tools are sent\": want 1 tool, got 0\n2. step \"y\": boom"
		b, err = json.Marshal(res)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		code, out := r.run(diffStep, env)
		require.Equal(t, 0, code, "merge exits 1 on a side with a failure; the step goes on to the diff: %s", out)
		comment := read(r, "report/comment.md")
		assert.Contains(t, comment, "#### REGRESSIONS (1; fail the gate)")
		assert.Contains(t, comment, "→ failed: 2 steps failed: step \"the tools are sent\": want 1 tool, got 0")
		assert.Equal(t, "1\n", read(r, "report/diff-exit-code"))
		code, _ = r.run(exitStep, nil)
		assert.Equal(t, 1, code)
	})

	t.Run("a missing shard ends the job as a setup error", func(t *testing.T) {
		r := setup("base", "head")
		code, out := r.run(diffStep, map[string]string{"SHARDS": "2", "SDKS": "go", "BASE_SHA": "a", "HEAD_SHA": "b", "RUN_URL": runURL})
		assert.Equal(t, 2, code, out)
	})
}

// The comment job's script (actions/github-script) run in Node against a stand-in for the
// GitHub API: it posts report/comment.md behind its marker, updates its own earlier comment
// rather than adding one, and never posts more than it read.
func TestPullRequestCommentIsSticky(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not on PATH")
	}
	body, err := os.ReadFile(workflow)
	require.NoError(t, err)
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string            `yaml:"name"`
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(body, &wf))
	script := ""
	for _, s := range wf.Jobs["pr-comment"].Steps {
		if strings.HasPrefix(s.Uses, "actions/github-script@") {
			script = s.With["script"]
		}
	}
	require.NotEmpty(t, script)
	for _, tc := range []struct {
		name, existing string
		want           string
	}{
		{"first push: a new comment", `[{"id": 5, "user": {"type": "User"}, "body": "<!-- copilot-sdk-conformance:pr-diff -->\nquoted by a person"}]`, "create"},
		{"later pushes: the bot's comment updated", `[{"id": 9, "user": {"type": "Bot"}, "body": "<!-- copilot-sdk-conformance:pr-diff -->\nold"}]`, "update 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "report"), 0o755))
			comment := "### Conformance\n\n**1 regressions (scenario × SDK)**\n" + strings.Repeat("x", 70000)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "report", "comment.md"), []byte(comment), 0o644))
			harness := `const calls = [];
const github = {
  paginate: async (fn, args) => { calls.push('list ' + args.issue_number); return ` + tc.existing + `; },
  rest: { issues: {
    listComments: 'listComments',
    updateComment: async (a) => { calls.push('update ' + a.comment_id); calls.body = a.body; },
    createComment: async (a) => { calls.push('create'); calls.body = a.body; },
  } },
};
const context = { repo: { owner: 'o', repo: 'r' } };
const core = { setFailed: (m) => { calls.push('failed ' + m); } };
(async function (github, context, core, require) {
` + script + `
})(github, context, core, require).then(() => { console.log(JSON.stringify({ calls: calls.slice(), body: calls.body })); });
`
			p := filepath.Join(dir, "post.js")
			require.NoError(t, os.WriteFile(p, []byte(harness), 0o644))
			cmd := exec.Command("node", p)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PR_NUMBER=42")
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			var got struct {
				Calls []string `json:"calls"`
				Body  string   `json:"body"`
			}
			require.NoError(t, json.Unmarshal(out, &got), string(out))
			assert.Equal(t, []string{"list 42", tc.want}, got.Calls)
			assert.True(t, strings.HasPrefix(got.Body, "<!-- copilot-sdk-conformance:pr-diff -->\n### Conformance\n"))
			assert.LessOrEqual(t, len([]rune(got.Body)), 65536, "GitHub's limit on a comment")
		})
	}
}
