package finish

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScrubDirKeepsRecordedPathsTrue: a transcript named after a scenario that quotes a secret is
// renamed as its path is scrubbed in results.json, so the recorded path still finds the file (and
// no file name keeps the secret).
func TestScrubDirKeepsRecordedPathsTrue(t *testing.T) {
	dir := t.TempDir()
	name := "provider-apiKey-sk-abcdefghijklmnopqrstuvwx12345-is-sent.ndjson"
	rel := filepath.Join("transcripts", "node", name)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "transcripts", "node"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte("{}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.json"), []byte(`{"transcript":"`+rel+`"}`), 0o644))
	require.NotEqual(t, name, transcript.Scrub(name), "the name must hold a secret for this test")

	scrubDir(dir, io.Discard)

	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "sk-abcdefghijklmnopqrstuvwx12345")
	assert.FileExists(t, filepath.Join(dir, transcript.Scrub(rel)))
	assert.NoFileExists(t, filepath.Join(dir, rel))
}

// TestScrubDirFindsSecretsInAnyOrder: a credential found by its shape in one file ("Bearer …") is
// scrubbed from every file of the folder, also those scrubbed before it was found.
func TestScrubDirFindsSecretsInAnyOrder(t *testing.T) {
	dir := t.TempDir()
	const secret = "scrubdirOrder0123456789"
	for name, text := range map[string]string{"a-first.log": "value " + secret + "\n", "b-second.log": "Authorization: Bearer " + secret + "\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	scrubDir(dir, io.Discard)
	for _, name := range []string{"a-first.log", "b-second.log"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.NotContains(t, string(b), secret, name)
		assert.Contains(t, string(b), transcript.Redacted(secret), name)
	}
}
