package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProtocolBreaksFailAtOnce: a driver line that breaks the protocol itself ends the command
// waiting on it at once (the time-out is a minute: a "timed out" failure would mean it waited),
// naming the line, and the transcript keeps at most KeptPrefix bytes of an oversized one.
func TestProtocolBreaksFailAtOnce(t *testing.T) {
	// Each driver reads one command and writes what its case says instead of an answer (then
	// waits: only the harness may end it).
	for _, tc := range []struct {
		name, write, want string
		keep              int  // the length of the recorded line, when checked
		firstOK           bool // the first command is answered; the line after it breaks
	}{
		{name: "unknown id", write: `printf '{"id":999,"outcome":"ok","result":{}}\n'`, want: "stdout line 1 answers an id the harness never used (id 999)"},
		{name: "answered twice", write: `printf '{"id":1,"outcome":"ok","result":{}}\n{"id":1,"outcome":"ok","result":{}}\n'`, want: "stdout line 2 answers a command already answered (id 1)", firstOK: true},
		{name: "not UTF-8", write: `printf '{"event":"x\377","args":{}}\n'`, want: "stdout line 1 is not UTF-8 (byte 0xff at offset 11)"},
		{name: "not JSON", write: `echo 'Hello from the SDK logger'`, want: "stdout line 1: not a protocol line"},
		{name: "over the limit", write: fmt.Sprintf(`head -c %d /dev/zero | tr '\0' x; echo`, MaxLine+1), keep: KeptPrefix,
			want: fmt.Sprintf("stdout line 1 is %d bytes, over the %d-byte limit of a protocol line; its first %d bytes are kept", MaxLine+1, MaxLine, KeptPrefix)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Start(context.Background(), Local{Argv: []string{"sh", "-c", "read -r line; " + tc.write + "; sleep 300"}, Dir: t.TempDir()})
			require.NoError(t, err)
			defer c.Kill()
			var mu sync.Mutex
			var lines []Line
			c.SetSink(func(l Line) { mu.Lock(); lines = append(lines, l); mu.Unlock() })
			_, err = c.Call(context.Background(), "hello", nil, time.Minute)
			if tc.firstOK {
				require.NoError(t, err)
				_, err = c.Call(context.Background(), "hello", nil, time.Minute)
			}
			var f *Failure
			require.True(t, errors.As(err, &f), "%v", err)
			assert.Equal(t, "protocol", f.Kind)
			assert.Contains(t, f.Detail, tc.want)

			// Every later command fails the same way without being sent.
			_, err = c.Call(context.Background(), "ping", nil, time.Minute)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			<-c.Done()
			require.NotNil(t, c.Exited())
			assert.Equal(t, "protocol", c.Exited().Kind)

			mu.Lock()
			defer mu.Unlock()
			var bad []Line
			for _, l := range lines {
				if l.Err != nil {
					bad = append(bad, l)
				}
			}
			require.Len(t, bad, 1, "the breaking line is recorded once, with its reason")
			assert.Contains(t, bad[0].Err.Error(), tc.want)
			if tc.keep > 0 {
				assert.Len(t, bad[0].Body, tc.keep)
				assert.Equal(t, strings.Repeat("x", tc.keep), string(bad[0].Body))
			}
		})
	}
}
