package pending

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/hold"
)

// The sweep waits for the other kinds' answers however long they take, so the judgement is by
// order alone: an answer before the release passes, one after it (an SDK that serves one request
// at a time, whose answers come once the held one is released or the runtime gave up on them)
// fails, and so does a request never answered.
func TestJudgeOther(t *testing.T) {
	m := schemagen.Method{Name: "userInput.request"}
	k := hold.Kind{Method: &m}
	frames := func(answerSeq int) []hold.FrameHead {
		f := []hold.FrameHead{{Seq: 11, Dir: transcript.RuntimeToSDK, ID: "7", Method: "userInput.request"}}
		if answerSeq > 0 {
			f = append(f, hold.FrameHead{Seq: answerSeq, Dir: transcript.SDKToRuntime, ID: "7"})
		}
		return f
	}
	held := pendingCall{requestSeq: 5, id: "3"}
	tests := []struct {
		name   string
		frames []hold.FrameHead
		want   string // "" passes
	}{
		{"answered while the other is held", frames(12), ""},
		{"answered only after the release", frames(30), "answered (#30) only after the held tool call lookup (request #5, id 3) was released (after #20)"},
		{"never answered", frames(0), "never answered"},
		{"never sent", nil, "the runtime's request is not in the transcript"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := callIn(tt.frames, 10, k, "")
			got := judgeOther(k.String(), c, "tool call lookup", held, 20)
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tt.want)
		})
	}
}
