package timing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

func entry(t float64, dir, frame string) transcript.Entry {
	return transcript.Entry{TMS: t, Dir: dir, Conn: "c1", Frame: []byte(frame)}
}

func split(e transcript.Entry, header float64) transcript.Entry {
	e.HeaderTMS = &header
	return e
}

func cmd(t float64, id, name string) transcript.Entry {
	return entry(t, transcript.HarnessToDriver, `{"id":`+id+`,"cmd":"`+name+`","args":{}}`)
}

func result(t float64, id string) transcript.Entry {
	return entry(t, transcript.DriverToHarness, `{"id":`+id+`,"outcome":"ok","result":{}}`)
}

func req(t float64, id, method string) transcript.Entry {
	return entry(t, transcript.SDKToRuntime, `{"jsonrpc":"2.0","id":"`+id+`","method":"`+method+`"}`)
}

func resp(t float64, id string) transcript.Entry {
	return entry(t, transcript.RuntimeToSDK, `{"jsonrpc":"2.0","id":"`+id+`","result":{}}`)
}

func numbered(es ...transcript.Entry) []transcript.Entry {
	for i := range es {
		es[i].Seq = i + 1
	}
	return es
}

func TestAnalyze(t *testing.T) {
	tests := []struct {
		name         string
		entries      []transcript.Entry
		wantCommands []Command
		wantObs      []Observation
	}{
		{
			name: "a fast SDK: one request per command",
			entries: numbered(
				cmd(0, "1", "createSession"), req(1.5, "a", "session.create"), resp(1.6, "a"), result(2.6, "1"),
			),
			wantCommands: []Command{{Seq: 1, Name: "createSession", ToFirstFrame: 1.5, HasFirstFrame: true,
				AnswerToResult: 1, HasAnswer: true, LastRoundTrip: 0.1, Total: 2.6, Answered: true}},
		},
		{
			name: "events between the command and its result do not count as the result",
			entries: numbered(
				cmd(0, "1", "send"), req(1, "a", "session.send"), resp(2, "a"),
				entry(3, transcript.RuntimeToSDK, `{"jsonrpc":"2.0","method":"session.event","params":{}}`),
				entry(4, transcript.DriverToHarness, `{"event":"session.event","args":{}}`),
				result(5, "1"),
			),
			wantCommands: []Command{{Seq: 1, Name: "send", ToFirstFrame: 1, HasFirstFrame: true,
				AnswerToResult: 2, HasAnswer: true, LastRoundTrip: 1, Total: 5, Answered: true}},
		},
		{
			name: "a request whose body arrives 43 ms after its header",
			entries: numbered(
				cmd(0, "7", "createSession"), split(req(44, "a", "session.create"), 1), resp(44.1, "a"), result(45, "7"),
			),
			wantCommands: []Command{{Seq: 1, Name: "createSession", ToFirstFrame: 44, HasFirstFrame: true,
				AnswerToResult: 0.9, HasAnswer: true, LastRoundTrip: 0.1, Total: 45, Answered: true}},
			wantObs: []Observation{{Kind: SplitFrame, Seq: 2, Method: "session.create", Millis: 43,
				Message: "session.create: header and body written apart; the body arrived 43.0 ms after the header"}},
		},
		{
			name: "a header and body read apart within the same millisecond are no observation",
			entries: numbered(
				cmd(0, "7", "createSession"), split(req(1.4, "a", "session.create"), 1.35), resp(1.5, "a"), result(2, "7"),
			),
			wantCommands: []Command{{Seq: 1, Name: "createSession", ToFirstFrame: 1.4, HasFirstFrame: true,
				AnswerToResult: 0.5, HasAnswer: true, LastRoundTrip: 0.1, Total: 2, Answered: true}},
		},
		{
			name: "a close that waits a second after the detach is answered",
			entries: numbered(
				cmd(0, "9", "stopClient"), req(1, "d", "session.detach"), resp(1.2, "d"), result(1001.2, "9"),
			),
			wantCommands: []Command{{Seq: 1, Name: "stopClient", ToFirstFrame: 1, HasFirstFrame: true,
				AnswerToResult: 1000, HasAnswer: true, LastRoundTrip: 0.2, Total: 1001.2, Answered: true}},
			wantObs: []Observation{{Kind: SlowClose, Seq: 1, Method: "stopClient", Millis: 1000,
				Message: "stopClient returned 1000 ms after the runtime's last answer (that request's round trip: 0.2 ms)"}},
		},
		{
			name: "a prompt close is no observation",
			entries: numbered(
				cmd(0, "9", "stopClient"), req(1, "d", "session.detach"), resp(1.2, "d"), result(3, "9"),
			),
			wantCommands: []Command{{Seq: 1, Name: "stopClient", ToFirstFrame: 1, HasFirstFrame: true,
				AnswerToResult: 1.8, HasAnswer: true, LastRoundTrip: 0.2, Total: 3, Answered: true}},
		},
		{
			name: "a command with no wire traffic and one never answered",
			entries: numbered(
				cmd(0, "1", "defineTool"), result(0.5, "1"), cmd(1, "2", "send"),
			),
			wantCommands: []Command{
				{Seq: 1, Name: "defineTool", Total: 0.5, Answered: true},
				{Seq: 3, Name: "send"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := Analyze(tt.entries, DefaultOptions)
			require.Len(t, tl.Commands, len(tt.wantCommands))
			for i, want := range tt.wantCommands {
				got := tl.Commands[i]
				assert.Equal(t, want.Seq, got.Seq)
				assert.Equal(t, want.Name, got.Name)
				assert.Equal(t, want.HasFirstFrame, got.HasFirstFrame)
				assert.InDelta(t, want.ToFirstFrame, got.ToFirstFrame, 1e-9)
				assert.Equal(t, want.HasAnswer, got.HasAnswer)
				assert.InDelta(t, want.AnswerToResult, got.AnswerToResult, 1e-9)
				assert.InDelta(t, want.LastRoundTrip, got.LastRoundTrip, 1e-9)
				assert.InDelta(t, want.Total, got.Total, 1e-9)
				assert.Equal(t, want.Answered, got.Answered)
			}
			require.Len(t, tl.Observations, len(tt.wantObs))
			for i, want := range tt.wantObs {
				got := tl.Observations[i]
				assert.InDelta(t, want.Millis, got.Millis, 1e-9)
				got.Millis = want.Millis
				assert.Equal(t, want, got)
			}
		})
	}
}

func TestAggregate(t *testing.T) {
	fast := Analyze(numbered(cmd(0, "1", "connect"), req(1, "a", "connect"), resp(1.1, "a"), result(2, "1")), DefaultOptions)
	var tls []Timeline
	for i := 0; i < 19; i++ {
		tls = append(tls, fast)
	}
	slow := Analyze(numbered(
		cmd(0, "1", "stopClient"), split(req(44, "a", "session.detach"), 1), resp(44.1, "a"), result(1044.1, "1"),
	), DefaultOptions)
	tls = append(tls, slow)

	s := Aggregate("python", tls)
	assert.Equal(t, "python", s.SDK)
	assert.Equal(t, 20, s.Commands)
	assert.Equal(t, Stats{N: 20, P50: 1, P95: 1, Max: 44}, s.ToFirstFrame)
	assert.Equal(t, 20, s.AnswerToResult.N)
	assert.InDelta(t, 0.9, s.AnswerToResult.P50, 1e-9)
	assert.InDelta(t, 1000, s.AnswerToResult.Max, 1e-9)
	assert.Equal(t, map[string]int{SplitFrame: 1, SlowClose: 1}, s.Observations)
	assert.InDelta(t, 43, s.Worst[SplitFrame], 1e-9)
	assert.InDelta(t, 1000, s.Worst[SlowClose], 1e-9)

	assert.Equal(t, Summary{SDK: "none", Observations: map[string]int{}, Worst: map[string]float64{}}, Aggregate("none", nil))
}
