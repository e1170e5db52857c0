package surface

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLocateSpawned(t *testing.T) {
	base := Process{Args: []string{"--headless", "--port", "1"}, Env: map[string]string{"HOME": "/h", "USER": "u", "LANG": "C", "PORT": "1"}}
	base2 := Process{Args: []string{"--headless", "--port", "2"}, Env: map[string]string{"HOME": "/h", "USER": "u", "LANG": "C", "PORT": "2"}}
	tests := []struct {
		name        string
		p           Process
		want        any
		path, issue string
	}{
		{"a flag's value", Process{Args: []string{"--headless", "--log-level", "debug"}, Env: base.Env}, "debug", "process.args --log-level", ""},
		{"a flag=value", Process{Args: []string{"--headless", "--idle=3"}, Env: base.Env}, 3, "process.args --idle", ""},
		{"a switch", Process{Args: []string{"--headless", "--remote"}, Env: base.Env}, true, "process.args --remote", ""},
		{"a variable", Process{Args: base.Args, Env: map[string]string{"HOME": "/h", "PORT": "9", "TOKEN": "tok"}}, "tok", "process.env.TOKEN", ""},
		{"an object's values, each a variable", Process{Args: base.Args, Env: map[string]string{"HOME": "/h", "A": "x", "B": "y", "ON": "true"}},
			map[string]any{"a": "x", "b": "y"}, "process.env.A, process.env.B", ""},
		{"an object's value lost", Process{Args: base.Args, Env: map[string]string{"HOME": "/h", "A": "x"}},
			map[string]any{"a": "x", "b": "y"}, "process.env.A", `not ["y"]`},
		{"the working directory", Process{Args: base.Args, Env: base.Env, Dir: "/w"}, "/w", "process.cwd", ""},
		{"nowhere", Process{Args: base.Args, Env: base.Env}, "v", "", ""},
		{"the environment replaced", Process{Args: base.Args, Env: map[string]string{"PORT": "3"}}, map[string]any{}, "process.env replaced", ""},
		{"a variable removed by name", Process{Args: base.Args, Env: map[string]string{"HOME": "/h", "USER": "u", "PORT": "3"}}, []any{"LANG"}, "process.env -LANG", ""},
		{"a list of entries, each a variable", Process{Args: base.Args, Env: map[string]string{"HOME": "/h", "USER": "u", "LANG": "C", "α-one": "", "two": ""}}, []any{"α-one", "two"}, "process.env.two, process.env.α-one", ""},
		{"a variable removed", Process{Args: base.Args, Env: map[string]string{"HOME": "/h", "USER": "u", "PORT": "3"}}, false, "process.env -LANG", ""},
		{"a request", Process{Args: base.Args, Env: base.Env, Requests: []Request{{Method: "connect", Params: map[string]any{"k": "v"}}}}, "v", "connect.k", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, issue := locateSpawned([]Process{base, base2}, tt.p, tt.want)
			assert.Equal(t, tt.path, path)
			if tt.issue == "" {
				assert.Empty(t, issue)
			} else {
				assert.Contains(t, issue, tt.issue)
			}
		})
	}
}

// The recorder keeps the environment the SDK gave, variables whose names are not shell
// identifiers included (a shell's own env would drop them), and adds nothing of its own.
func TestSpawnerRecordsTheEnvironmentAsGiven(t *testing.T) {
	sp, err := NewSpawner([]string{"/bin/true"})
	require.NoError(t, err)
	cmd := exec.Command(sp.CLIPath, "--headless", "ä b")
	cmd.Env = []string{"kéy-env=Grüße", "PATH=/usr/bin:/bin", "A=1"}
	require.NoError(t, cmd.Run())
	p, err := sp.Read()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"kéy-env": "Grüße", "PATH": "/usr/bin:/bin", "A": "1"}, p.Env)
	assert.Equal(t, []string{"--headless", "ä b"}, p.Args)
}
