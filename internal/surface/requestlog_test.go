package surface

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

func request(id int, method string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"sessionId":"s"}}`, id, method))
}

// TestRequestLogReadsWhatIsNew: each request once, in order, however often asked, and only the
// entries keep keeps.
func TestRequestLogReadsWhatIsNew(t *testing.T) {
	rec := transcript.Memory()
	var log RequestLog
	rec.Frame("c1", transcript.SDKToRuntime, request(1, "session.create"))
	assert.Len(t, log.Update(rec, nil), 1)
	assert.Len(t, log.Update(rec, nil), 1, "nothing new")
	rec.Frame("c2", transcript.SDKToRuntime, request(1, "session.destroy"))
	rec.Frame("c1", transcript.SDKToRuntime, request(2, "session.send"))
	got := log.Update(rec, func(e transcript.Entry) bool { return e.Conn != "c2" })
	assert.Equal(t, []string{"session.create", "session.send"}, []string{got[0].Method, got[1].Method})
}

// BenchmarkRequestLog asks for the requests after each new one of a transcript of 5,000, as a
// surface probe does after every value it sets: go test -run '^$' -bench RequestLog ./internal/surface
func BenchmarkRequestLog(b *testing.B) {
	rec := transcript.Memory()
	for i := range 5000 {
		rec.Frame("c1", transcript.SDKToRuntime, request(i, "session.options.update"))
	}
	var log RequestLog
	log.Update(rec, nil)
	i := 5000
	for b.Loop() {
		i++
		rec.Frame("c1", transcript.SDKToRuntime, request(i, "session.options.update"))
		log.Update(rec, nil)
	}
}
