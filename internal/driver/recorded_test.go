package driver

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecordedDriverAnswersFromTheTranscript(t *testing.T) {
	frame := func(dir, s string) transcript.Entry {
		return transcript.Entry{Conn: "driver", Dir: dir, Frame: json.RawMessage(s)}
	}
	rec := NewRecorded([]transcript.Entry{
		frame(transcript.HarnessToDriver, `{"id":7,"cmd":"connect","args":{}}`),
		frame(transcript.DriverToHarness, `{"id":7,"outcome":"ok","result":{}}`),
		frame(transcript.HarnessToDriver, `{"id":8,"cmd":"send","args":{}}`),
		frame(transcript.DriverToHarness, `{"event":"session.event","args":{"type":"x"}}`),
		frame(transcript.DriverToHarness, `{"id":8,"outcome":"error","error":{"message":"boom"}}`),
	})
	c, err := Start(context.Background(), rec)
	require.NoError(t, err)
	defer c.Kill()
	var mu sync.Mutex
	var events []string
	c.SetSink(func(l Line) {
		mu.Lock()
		defer mu.Unlock()
		if !l.ToDriver {
			events = append(events, string(l.Body))
		}
	})

	r, err := c.Call(context.Background(), "connect", nil, time.Second)
	require.NoError(t, err, "the answer is renumbered to the new command's id")
	assert.Equal(t, OK, r.Outcome)
	r, err = c.Call(context.Background(), "send", nil, time.Second)
	require.NoError(t, err)
	assert.Equal(t, Error, r.Outcome)
	mu.Lock()
	assert.Contains(t, events, `{"event":"session.event","args":{"type":"x"}}`, "recorded events are replayed")
	mu.Unlock()

	_, err = c.Call(context.Background(), "stopClient", nil, time.Second)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `the recording has no further "stopClient" command`)
}

// A replayed transcript grows as the recorded one did: each command's stretch of the recorded
// wire is emitted as the command is answered, what came before the first command (and a
// spawned runtime's entries, which the steps read live) is there from the start, apart from
// untyped notes.
func TestRecordedDriverEmitsEachCommandsStretch(t *testing.T) {
	frame := func(dir, conn, s string) transcript.Entry {
		return transcript.Entry{Conn: conn, Dir: dir, Frame: json.RawMessage(s)}
	}
	rec := NewRecorded([]transcript.Entry{
		{Dir: transcript.Note, Text: "recording runtime listening"},
		frame(transcript.HarnessToDriver, "driver", `{"id":1,"cmd":"createSession","args":{}}`),
		frame(transcript.SDKToRuntime, "c1", `{"method":"session.create"}`),
		// The replayed steps write their own case notes (Since names an entry of theirs).
		{Dir: transcript.Note, Conn: "c1", Kind: transcript.KindCase, Case: "session.create tools", Since: 3},
		frame(transcript.DriverToHarness, "driver", `{"id":1,"outcome":"ok","result":{}}`),
		frame(transcript.HarnessToDriver, "driver", `{"id":2,"cmd":"stopClient","args":{}}`),
		frame(transcript.SDKToRuntime, "c1", `{"method":"session.detach"}`),
		frame(transcript.DriverToHarness, "driver", `{"id":2,"outcome":"ok","result":{}}`),
		{Dir: transcript.Note, Conn: "stdio-c1", Kind: transcript.KindArgv, Argv: []string{"--stdio"}},
	})
	var mu sync.Mutex
	var emitted []string
	rec.Emit = func(es []transcript.Entry) {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range es {
			emitted = append(emitted, string(e.Frame))
		}
	}
	// The note for people before the first command is not replayed (the replay's runtime writes
	// its own: a copy would shift every entry's number); the spawned runtime's argv is.
	require.Len(t, rec.Before(), 1, "the spawned runtime's argv")
	assert.Equal(t, transcript.KindArgv, rec.Before()[0].Kind)
	c, err := Start(context.Background(), rec)
	require.NoError(t, err)
	defer c.Kill()
	_, err = c.Call(context.Background(), "createSession", nil, time.Second)
	require.NoError(t, err)
	mu.Lock()
	assert.Equal(t, []string{`{"method":"session.create"}`}, emitted, "only the first command's stretch so far")
	mu.Unlock()
	_, err = c.Call(context.Background(), "stopClient", nil, time.Second)
	require.NoError(t, err)
	mu.Lock()
	assert.Equal(t, []string{`{"method":"session.create"}`, `{"method":"session.detach"}`}, emitted)
	mu.Unlock()
}

// Commands sent at once (a scenario's clients stopped together) are recorded before their
// answers, in either order: each is answered with the response that carries its id.
func TestRecordedDriverAnswersCommandsSentAtOnce(t *testing.T) {
	frame := func(dir, s string) transcript.Entry {
		return transcript.Entry{Conn: "driver", Dir: dir, Frame: json.RawMessage(s)}
	}
	rec := NewRecorded([]transcript.Entry{
		frame(transcript.HarnessToDriver, `{"id":3,"cmd":"stopClient","args":{"client":"c1"}}`),
		frame(transcript.HarnessToDriver, `{"id":4,"cmd":"stopClient","args":{"client":"c2"}}`),
		frame(transcript.DriverToHarness, `{"id":4,"outcome":"ok","result":{"which":"c2"}}`),
		frame(transcript.DriverToHarness, `{"id":3,"outcome":"error","error":{"message":"c1 failed"}}`),
	})
	c, err := Start(context.Background(), rec)
	require.NoError(t, err)
	defer c.Kill()
	r, err := c.Call(context.Background(), "stopClient", nil, time.Second)
	require.NoError(t, err, "the first command has its answer though the next command came first")
	assert.Equal(t, Error, r.Outcome)
	r, err = c.Call(context.Background(), "stopClient", nil, time.Second)
	require.NoError(t, err)
	assert.Equal(t, OK, r.Outcome)
	assert.JSONEq(t, `{"which":"c2"}`, string(r.Result))
}

// Commands of one name sent at once reach a replay in another order than the run recorded: each
// gets the recorded answer to the command naming its own handle.
func TestRecordedDriverAnswersEachHandleItsOwn(t *testing.T) {
	frame := func(dir, s string) transcript.Entry {
		return transcript.Entry{Conn: "driver", Dir: dir, Frame: json.RawMessage(s)}
	}
	rec := NewRecorded([]transcript.Entry{
		frame(transcript.HarnessToDriver, `{"id":1,"cmd":"createSession","args":{"client":"o1","session":"os1"}}`),
		frame(transcript.HarnessToDriver, `{"id":2,"cmd":"createSession","args":{"client":"o2","session":"os2"}}`),
		frame(transcript.DriverToHarness, `{"id":2,"outcome":"ok","result":{"sessionId":"B"}}`),
		frame(transcript.DriverToHarness, `{"id":1,"outcome":"ok","result":{"sessionId":"A"}}`),
	})
	c, err := Start(context.Background(), rec)
	require.NoError(t, err)
	defer c.Kill()
	r, err := c.Call(context.Background(), "createSession", map[string]any{"client": "o2", "session": "os2"}, time.Second)
	require.NoError(t, err)
	assert.JSONEq(t, `{"sessionId":"B"}`, string(r.Result), "os2 sent first in the replay gets os2's answer")
	r, err = c.Call(context.Background(), "createSession", map[string]any{"client": "o1", "session": "os1"}, time.Second)
	require.NoError(t, err)
	assert.JSONEq(t, `{"sessionId":"A"}`, string(r.Result))
}

// A frame the recorded runtime sent for the steps is a move of its own: it is played, with what
// followed it up to the next move (the SDK's answer, the driver's event), when the steps have
// the runtime send it again, and the command before it answers only its own stretch. A frame
// played already (a command skipped past it) is taken without being written twice; one the
// recording does not hold is refused.
func TestRecordedRuntimeFramesArePlayedWhenSentAgain(t *testing.T) {
	frame := func(dir, conn, s string, byStep bool) transcript.Entry {
		return transcript.Entry{Conn: conn, Dir: dir, Frame: json.RawMessage(s), ByStep: byStep}
	}
	ev := func(typ string) string { return `{"method":"session.event","params":{"event":{"type":"` + typ + `"}}}` }
	rec := NewRecorded([]transcript.Entry{
		frame(transcript.HarnessToDriver, "driver", `{"id":1,"cmd":"createSession","args":{}}`, false),
		frame(transcript.DriverToHarness, "driver", `{"id":1,"outcome":"ok","result":{}}`, false),
		frame(transcript.RuntimeToSDK, "c1", ev("a"), true),
		frame(transcript.DriverToHarness, "driver", `{"event":"session.event","args":{"type":"a"}}`, false),
		frame(transcript.SDKToRuntime, "c1", `{"id":"9","method":"answer"}`, false),
		frame(transcript.RuntimeToSDK, "c1", ev("b"), true),
		frame(transcript.HarnessToDriver, "driver", `{"id":2,"cmd":"hello","args":{}}`, false),
		frame(transcript.DriverToHarness, "driver", `{"id":2,"outcome":"ok","result":{}}`, false),
	})
	var mu sync.Mutex
	var got []string
	add := func(s string) { mu.Lock(); got = append(got, s); mu.Unlock() }
	rec.Emit = func(es []transcript.Entry) {
		for _, e := range es {
			add(string(e.Frame))
		}
	}
	rec.Len = func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
	c, err := Start(context.Background(), rec)
	require.NoError(t, err)
	defer c.Kill()
	c.SetSink(func(l Line) {
		if !l.ToDriver {
			add(string(l.Body))
		}
	})
	is := func(typ string) func(json.RawMessage) bool {
		return func(f json.RawMessage) bool { return string(f) == ev(typ) }
	}

	_, err = c.Call(context.Background(), "createSession", nil, time.Second)
	require.NoError(t, err)
	assert.Equal(t, []string{`{"id":1,"outcome":"ok","result":{}}`}, got, "the command's stretch ends at the runtime's move")
	sent, later, ok := rec.Play(is("a"))
	require.True(t, ok)
	assert.Equal(t, ev("a"), string(sent))
	assert.Equal(t, []json.RawMessage{json.RawMessage(`{"id":"9","method":"answer"}`)}, later, "the SDK's frames after it")
	assert.Equal(t, []string{`{"id":1,"outcome":"ok","result":{}}`, ev("a"), `{"event":"session.event","args":{"type":"a"}}`, `{"id":"9","method":"answer"}`}, got,
		"the frame, then what followed it in its recorded order")
	_, _, ok = rec.Play(is("a"))
	assert.False(t, ok, "each recorded frame is played once")

	_, err = c.Call(context.Background(), "hello", nil, time.Second)
	require.NoError(t, err)
	n := len(got)
	_, _, ok = rec.Play(is("b"))
	assert.True(t, ok, "played on the way to the command after it, then taken")
	assert.Len(t, got, n, "and not written twice")
	assert.Contains(t, got, ev("b"))
}
