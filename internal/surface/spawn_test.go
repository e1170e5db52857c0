package surface

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLocateSpawned(t *testing.T) {
	base := Process{Args: []string{"--headless", "--port", "1"}, Env: map[string]string{"HOME": "/h", "PORT": "1"}}
	base2 := Process{Args: []string{"--headless", "--port", "2"}, Env: map[string]string{"HOME": "/h", "PORT": "2"}}
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
