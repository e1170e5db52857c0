package standin

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTokenRecordedRedacted: an SDK sends the application's token in connect; the transcript
// file holds its fingerprint and where it was, never the token.
func TestTokenRecordedRedacted(t *testing.T) {
	const token = "ghu_RuntimePlanted9876543210"
	path := filepath.Join(t.TempDir(), "t.ndjson")
	rec, err := transcript.New(path)
	require.NoError(t, err)
	srv := New(rec, Options{})
	addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	c := dial(t, addr)
	resp := c.call("connect", map[string]any{"token": token})
	require.Nil(t, resp.Error)
	sess := c.call("session.create", map[string]any{"sessionId": "s1"})
	require.Nil(t, sess.Error)
	c.call("session.send", map[string]any{"sessionId": "s1", "prompt": "the token was " + token})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, srv.Wait(ctx))
	srv.Close()
	require.NoError(t, rec.Close())

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "RuntimePlanted")
	entries, err := transcript.Read(path)
	require.NoError(t, err)
	var reds []transcript.Redaction
	for _, e := range entries {
		reds = append(reds, e.Redacted...)
	}
	assert.Contains(t, reds, transcript.Redaction{Path: "params.token", SHA256: transcript.Fingerprint(token)},
		"a feature can still see that the token was sent in connect, and which")
}

func TestListenNotesANonLoopbackAddress(t *testing.T) {
	rec := transcript.Memory()
	srv := New(rec, Options{})
	_, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	srv.Close()
	assert.Empty(t, rec.Entries(), "loopback is the quiet default")

	assert.True(t, Loopback(&net.TCPAddr{IP: net.IPv6loopback}))
	assert.False(t, Loopback(&net.TCPAddr{IP: net.IPv4zero}))
	assert.False(t, Loopback(&net.TCPAddr{IP: net.ParseIP("192.168.1.5")}))
	srv = New(rec, Options{})
	if _, err := srv.Listen("0.0.0.0:0"); err == nil {
		srv.Close()
		require.NotEmpty(t, rec.Entries())
		assert.Contains(t, rec.Entries()[0].Text, "not a loopback address")
	}
}
