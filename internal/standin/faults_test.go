package standin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOversizedFrameIsAnsweredAndSkipped: a 100 MB frame from an SDK is recorded as a bad frame
// naming its declared size (not its bytes), answered with a parse error, and the connection
// goes on with the next frame.
func TestOversizedFrameIsAnsweredAndSkipped(t *testing.T) {
	_, rec, addr := start(t)
	c := dial(t, addr)
	const size = 100 << 20
	go func() {
		_, _ = fmt.Fprintf(c.c, "Content-Length: %d\r\n\r\n", size)
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for i := 0; i < size>>20; i++ {
			if _, err := c.c.Write(chunk); err != nil {
				return
			}
		}
	}()
	_ = c.c.SetReadDeadline(time.Now().Add(30 * time.Second))
	body, err := c.r.Next()
	require.NoError(t, err)
	var m wire.Message
	require.NoError(t, json.Unmarshal(body, &m))
	require.NotNil(t, m.Error)
	assert.Equal(t, wire.CodeParseError, m.Error.Code)
	assert.Contains(t, m.Error.Message, fmt.Sprintf("frame of %d bytes is over the %d-byte limit", size, wire.DefaultMaxFrame))

	resp := c.call("ping", map[string]any{})
	assert.Nil(t, resp.Error, "the connection goes on")
	var bad []transcript.Entry
	for _, e := range rec.Entries() {
		if e.Error != "" {
			bad = append(bad, e)
		}
	}
	require.Len(t, bad, 1)
	assert.Less(t, len(bad[0].Raw), 1024, "the body is not held in the transcript")
}
