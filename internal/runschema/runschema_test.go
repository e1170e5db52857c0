package runschema

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fakeSchemas struct {
	dir, from string
	err       error
	asked     []string
}

func (f *fakeSchemas) SchemaDir(_ context.Context, sdk, version string, _ io.Writer) (string, string, error) {
	f.asked = append(f.asked, sdk+"@"+version)
	return f.dir, f.from, f.err
}

func TestLoadSaysWhereTheSchemaCameFromOrWhyNot(t *testing.T) {
	d, ok := sdks.SchemaSource()
	require.True(t, ok)
	pins := map[string]sdks.Pin{d.Name: {Package: "pkg", Version: "1.2.3"}}
	empty := t.TempDir()
	broken := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(broken, "api.schema.json"), []byte("{not json"), 0o644))

	tests := []struct {
		name string
		src  *fakeSchemas
		want string
	}{
		{"the runner cannot give it", &fakeSchemas{err: errors.New("node not found on PATH\nmore")}, "unavailable: node not found on PATH"},
		{"no schema in the folder", &fakeSchemas{dir: empty}, "unavailable: "},
		{"a schema that does not parse", &fakeSchemas{dir: broken, from: "driver image x"}, "unavailable: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Load(context.Background(), tt.src, pins, io.Discard)
			assert.Nil(t, l.Validator)
			assert.Nil(t, l.Gen)
			assert.Contains(t, l.Desc, tt.want)
			assert.NotContains(t, l.Desc, "\n", "one line")
			assert.Equal(t, []string{d.Name + "@1.2.3"}, tt.src.asked, "the schema-source SDK at its pin")
		})
	}
}
