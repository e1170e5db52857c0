package scenariotest

import "github.com/copilot-sdk-conformance/conformance/internal/transcript"

// Frame is one frame of a test's transcript: its direction and its body.
type Frame struct{ Dir, Body string }

// SDK is a frame the SDK sent the runtime.
func SDK(b string) Frame { return Frame{transcript.SDKToRuntime, b} }

// RT is a frame the runtime sent the SDK.
func RT(b string) Frame { return Frame{transcript.RuntimeToSDK, b} }

// OKAnswer is a JSON-RPC response with an empty result to the request id.
func OKAnswer(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` }

// Transcript is a transcript holding frames, on connection c1.
func Transcript(frames ...Frame) *transcript.Recorder {
	rec := transcript.Memory()
	for _, f := range frames {
		rec.Frame("c1", f.Dir, []byte(f.Body))
	}
	return rec
}
