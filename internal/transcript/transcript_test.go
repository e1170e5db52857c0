package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

func TestRecorderWritesAsItGoes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b.ndjson")
	r, err := New(path)
	require.NoError(t, err)
	r.Frame("c1", SDKToRuntime, []byte(`{"jsonrpc":"2.0","id":1,"method":"connect","params":{}}`))
	r.Frame("c1", SDKToRuntime, []byte(`not json`))
	r.Bad("c1", SDKToRuntime, []byte("garbage"), errors.New("bytes outside a frame"))

	// Before Close: what was recorded is already on disk (a crash loses nothing seen).
	got, err := Read(path)
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, []int{1, 2, 3}, []int{got[0].Seq, got[1].Seq, got[2].Seq})
	assert.Equal(t, "not json", got[1].Raw, "an invalid frame is kept as raw bytes")
	assert.Equal(t, "bytes outside a frame", got[2].Error)
	require.NoError(t, r.Close())

	reqs := Requests(got, "connect")
	require.Len(t, reqs, 1)
	assert.Equal(t, "c1", reqs[0].Conn)
}

func TestDecodeNamesTheBadLine(t *testing.T) {
	_, err := Decode(strings.NewReader("{\"seq\":1,\"dir\":\"note\"}\n{oops\n"), "x.ndjson")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "x.ndjson:2")
	_, err = Read(filepath.Join(t.TempDir(), "missing.ndjson"))
	assert.True(t, os.IsNotExist(err))
}

// The facts a reader needs survive a round trip through the file as typed fields.
func TestTypedEntriesRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.ndjson")
	rec, err := New(path)
	require.NoError(t, err)
	rec.Scenario(Header{Name: `a "quoted" name`, Feature: "tools/x.feature", SDK: "go"})
	rec.Schema("c1", Violation{Method: "session.create", Pointer: "/tools/0", Message: "additional properties 'x' not allowed"})
	rec.Notef("", "schema: this note is text, not a violation")
	rec.Started([]string{"--headless", "--stdio"})
	require.NoError(t, rec.Close())

	entries, err := Read(path)
	require.NoError(t, err)
	h, ok := HeaderOf(entries)
	require.True(t, ok)
	assert.Equal(t, Header{Name: `a "quoted" name`, Feature: "tools/x.feature", SDK: "go"}, h)
	assert.Equal(t, []Violation{{Method: "session.create", Pointer: "/tools/0", Message: "additional properties 'x' not allowed"}}, Violations(entries))
	assert.Equal(t, "session.create: /tools/0: additional properties 'x' not allowed", Violations(entries)[0].String())
	assert.Equal(t, []string{"--headless", "--stdio"}, entries[3].Argv)
	assert.Equal(t, KindArgv, entries[3].Kind)
}

// FuzzDecode: any transcript file (as replay and diff read it) decodes or fails naming its line;
// it never panics.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"seq":1,"t_ms":0.1,"conn":"c1","dir":"sdk->runtime","frame":{"jsonrpc":"2.0","id":1,"method":"connect","params":{}}}` + "\n" +
		`{"seq":2,"t_ms":0.2,"dir":"note","text":"connection opened"}` + "\n"))
	f.Add([]byte(`{"seq":3,"dir":"sdk->runtime","raw":"garbage","error":"bytes outside a frame"}` + "\n\n{oops\n"))
	f.Add([]byte(`{"seq":"x","frame":[1,2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := Decode(bytes.NewReader(b), "t.ndjson")
		if err != nil && !strings.HasPrefix(err.Error(), "t.ndjson:") && !errors.Is(err, bufio.ErrTooLong) {
			t.Fatalf("error does not name the line: %v", err)
		}
		_ = Requests(entries, "connect")
	})
}

func TestFrameReadKeepsWhenASplitHeaderArrived(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.ndjson")
	r, err := New(path)
	require.NoError(t, err)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	at := time.Now()
	r.FrameRead("c1", SDKToRuntime, wire.Frame{Body: body, HeaderAt: at, BodyAt: at})
	r.FrameRead("c1", SDKToRuntime, wire.Frame{Body: body, HeaderAt: at, BodyAt: at.Add(time.Millisecond), Split: true})
	require.NoError(t, r.Close())
	es, err := Read(path)
	require.NoError(t, err)
	require.Len(t, es, 2)
	assert.Nil(t, es[0].HeaderTMS, "header and body together: no header time")
	require.NotNil(t, es[1].HeaderTMS)
	assert.LessOrEqual(t, *es[1].HeaderTMS, es[1].TMS)
	assert.JSONEq(t, string(body), string(es[1].Frame))
}

// TestBadBytesKeepTheTranscriptReadable: a frame that is not UTF-8 is kept as raw text (the file
// stays JSON), and bad bytes past MaxRaw keep a prefix and their size.
func TestBadBytesKeepTheTranscriptReadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.ndjson")
	r, err := New(path)
	require.NoError(t, err)
	r.Frame("c1", SDKToRuntime, []byte("{\"jsonrpc\":\"2.0\",\"method\":\"x\xff\"}"))
	r.Bad("driver", DriverToHarness, bytes.Repeat([]byte("x"), 1<<20), errors.New("too long"))
	require.NoError(t, r.Close())

	got, err := Read(path)
	require.NoError(t, err, "the transcript is JSON")
	require.Len(t, got, 2)
	assert.Empty(t, got[0].Frame)
	assert.Equal(t, "not UTF-8", got[0].Error)
	assert.Contains(t, got[0].Raw, `"method":"x`)
	assert.Len(t, got[1].Raw, MaxRaw)
	assert.Equal(t, "too long (1048576 bytes; the first 65536 kept)", got[1].Error)
}

// A case note names the case of its connection's requests: all of them (since 0, written after
// the case ran, as a sweep learns its client's connection), or those from a seq on (sequential
// cases on one connection); a request on another connection, or before the first span, has none.
func TestCaseNotesNameTheRequestsCase(t *testing.T) {
	r := Memory()
	req := func(conn, method string) {
		r.Frame(conn, SDKToRuntime, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{}}`))
	}
	req("c1", "connect")
	req("c2", "connect")
	req("c1", "session.create")
	r.Case("c1", 0, "session.create model = \"x\"")
	req("c3", "ping")
	r.Case("c3", r.Len()+1, "rpc ping")
	req("c3", "ping")
	r.Case("c3", r.Len()+1, "rpc models.list")
	req("c3", "models.list")
	var got []string
	for _, q := range Requests(r.Entries(), "") {
		got = append(got, q.Conn+" "+q.Method+" ["+q.Case+"]")
	}
	assert.Equal(t, []string{
		`c1 connect [session.create model = "x"]`, `c2 connect []`, `c1 session.create [session.create model = "x"]`,
		`c3 ping []`, `c3 ping [rpc ping]`, `c3 models.list [rpc models.list]`,
	}, got)
}

// A sequential sweep's notes name no connection: every connection's requests from each note on
// belong to its case, until a note with no case; a connection noted whole keeps its case.
func TestCaseNotesOfASequentialSweep(t *testing.T) {
	r := Memory()
	req := func(conn, method string) {
		r.Frame(conn, SDKToRuntime, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{}}`))
	}
	req("c1", "connect")
	r.Case("", r.Len()+1, "session.create model")
	req("c1", "session.create")
	req("c2", "connect")
	r.Case("", r.Len()+1, "session.create agent")
	req("c2", "session.create")
	req("c9", "session.create")
	r.Case("c9", 0, "whole")
	r.Case("", r.Len()+1, "")
	req("c1", "session.destroy")
	var got []string
	for _, q := range Requests(r.Entries(), "") {
		got = append(got, q.Conn+" "+q.Method+" ["+q.Case+"]")
	}
	assert.Equal(t, []string{
		`c1 connect []`, `c1 session.create [session.create model]`, `c2 connect [session.create model]`,
		`c2 session.create [session.create agent]`, `c9 session.create [whole]`, `c1 session.destroy []`,
	}, got)
}
