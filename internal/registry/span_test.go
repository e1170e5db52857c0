package registry

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// served lists from the published versions as a registry would (InRange).
func served(published ...string) Lister {
	return func(_ context.Context, r Range) ([]string, error) { return InRange(published, r) }
}

func TestBisection(t *testing.T) {
	list := served("1.0.5", "1.0.6", "1.0.7-preview.0", "1.0.7", "1.0.9")
	tests := []struct {
		name, good, bad string
		list            Lister
		want            []string
		wantErr         string
	}{
		{"good before bad", "1.0.5", "1.0.7", list, []string{"1.0.5", "1.0.6", "1.0.7"}, ""},
		{"a fix: good after bad, listed from good", "1.0.9", "1.0.6", list, []string{"1.0.9", "1.0.7", "1.0.6"}, ""},
		{"a pre-release bound", "1.0.6", "1.0.7-preview.0", list, []string{"1.0.6", "1.0.7-preview.0"}, ""},
		{"a bound the registry does not publish", "1.0.5", "1.0.8", list, nil, "1.0.8 is not among the versions the registry publishes from 1.0.5 to 1.0.8: [1.0.5 1.0.6 1.0.7]"},
		{"PyPI pre-releases order as PyPI's", "1.0.9rc1", "1.0.8", served("1.0.8", "1.0.9rc1"), []string{"1.0.9rc1", "1.0.8"}, ""},
		{"a registry that cannot be asked", "1.0.5", "1.0.6", func(context.Context, Range) ([]string, error) { return nil, errors.New("offline") },
			nil, "listing published versions: offline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Bisection(context.Background(), tt.list, tt.good, tt.bad)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSpan(t *testing.T) {
	list := served("1.0.5", "1.0.6-preview.1", "1.0.6", "1.0.7")
	tests := []struct {
		name    string
		r       Range
		want    []string
		wantErr string
	}{
		{"to the newest", Range{Lo: "1.0.6"}, []string{"1.0.6", "1.0.7"}, ""},
		{"with pre-releases", Range{Lo: "1.0.5", Hi: "1.0.6", Previews: true}, []string{"1.0.5", "1.0.6-preview.1", "1.0.6"}, ""},
		{"one version is no history", Range{Lo: "1.0.7"}, nil, "1 version(s) published from 1.0.7 to the newest ([1.0.7]): a history needs two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Span(context.Background(), list, tt.r)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestMajorStart(t *testing.T) {
	for _, tt := range []struct{ pin, want string }{{"1.0.14", "1.0.0"}, {"v1.0.14", "v1.0.0"}, {"0.3.0-java.2", "0.0.0"}, {"2.1.0", "2.0.0"}} {
		got, err := MajorStart(tt.pin)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got)
	}
	_, err := MajorStart("latest")
	assert.ErrorContains(t, err, `"latest" is not a semantic version`)
}
