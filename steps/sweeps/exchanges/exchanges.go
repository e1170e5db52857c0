package exchanges

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/jsondiff"
	"github.com/copilot-sdk-conformance/conformance/steps/rpccall"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// Model-request exchanges (drivers/PROTOCOL.md "Request handler"): the runtime hands the
// application's request handler (CopilotClientOptions.requestHandler and its kin) the HTTP
// requests it would otherwise send itself. One request is an exchange, not one call: a start
// frame with the head, the body in chunk frames, both acknowledged by the SDK; the handler runs
// once per request and its response goes back as SDK-to-runtime requests (a response start,
// the body in chunks). Which methods form an exchange is read from the schema (Doc.Exchange).

// engine is the exchange sweep's state over the scenario's core: the application's request
// handler and the model requests sent.
type engine struct {
	*scenario.Scenario
	exchange *exchangeSpec
}

// Register binds the exchange sweep's phrases on sc for the scenario s.
func Register(sc scenario.Binder, s *scenario.Scenario) {
	w := &engine{Scenario: s}
	scenario.Needing(sc, scenario.Needs("rpc.requestHandler")).Step(`^the application serves the runtime's model requests with its request handler$`, w.servesModelRequests)
	sc.Step(`^the runtime sends model requests generated from the runtime's schema$`, w.sendsModelRequests)
	sc.Step(`^the SDK acknowledged every frame of every model request$`, w.exchangeAcknowledged)
	sc.Step(`^the request handler received every model request as the runtime sent it$`, w.handlerReceivedRequests)
	sc.Step(`^the SDK sent the request handler's response back for every model request$`, w.exchangeResponded)
}

// exchangeSpec is the exchange scenario's state: the response the handler returns, and the
// requests the runtime sent.
type exchangeSpec struct {
	response  exchangeResponse
	sent      []*sentExchange
	start     schemagen.Method // the runtime's start method (httpRequestStart)
	chunk     schemagen.Method // the runtime's chunk method (httpRequestChunk)
	respStart string           // the SDK's response start method (httpResponseStart)
	respChunk string           // the SDK's response chunk method (httpResponseChunk)
}

// exchangeResponse is what the application's handler answers every request with.
type exchangeResponse struct {
	Status     int                 `json:"status"`
	StatusText string              `json:"statusText"`
	Headers    map[string][]string `json:"headers"`
	Body       string              `json:"body"`
}

// sentExchange is one request the runtime sent: its start and chunk params, and the SDK's answers.
type sentExchange struct {
	caseName string
	start    map[string]any
	chunks   []map[string]any
	body     []byte
}

// ack is the runtime's frame of an exchange and the SDK's answer to it (nil: none).
type ack struct {
	method, requestID string
	answer            map[string]any
}

// exchangeOf is the schema's exchange (schemagen.Doc.Exchange) as the scenario's state.
func exchangeOf(doc *schemagen.Doc) (*exchangeSpec, bool) {
	x, ok := doc.Exchange()
	if !ok {
		return nil, false
	}
	return &exchangeSpec{start: x.Start, chunk: x.Chunk, respStart: x.RespStart, respChunk: x.RespChunk}, true
}

// servesModelRequests connects a client whose application registered a request handler that
// answers every request with one generated response, and creates a session.
func (w *engine) servesModelRequests() error {
	doc, err := w.Schemas()
	if err != nil {
		return err
	}
	if _, err := w.ScriptedOnly(exchangeSweepWhy); err != nil {
		return err
	}
	x, ok := exchangeOf(doc)
	if !ok {
		return fmt.Errorf("the runtime's schema has no request exchange (a runtime-to-SDK start and chunk method keyed by requestId, answered by a response start and chunk)")
	}
	// Text and header values an HTTP library accepts: header values are ASCII (fetch's Headers
	// refuses others), the body is UTF-8 with non-ASCII text.
	x.response = exchangeResponse{
		Status: 200, StatusText: "OK",
		Headers: map[string][]string{"content-type": {"application/json"}, "x-conformance-reply": {"one", "two"}},
		Body:    `{"reply":"façade ✓ 応答 🚀"}`,
	}
	w.exchange = x
	c := fmt.Sprintf("c%d", len(w.Clients)+w.Stopped+1)
	res, err := w.Do("connect", map[string]any{"client": c, "address": w.Addr, "requestHandler": map[string]any{"start": x.start.Name, "chunk": x.chunk.Name, "response": x.response}})
	if err != nil {
		return err
	}
	var r struct {
		Handled []string `json:"handled"`
	}
	_ = json.Unmarshal(res, &r)
	if !slices.Contains(r.Handled, x.start.Name) || !slices.Contains(r.Handled, x.chunk.Name) {
		return fmt.Errorf("driver fault: connect with a requestHandler answered handled %v, want %s and %s", r.Handled, x.start.Name, x.chunk.Name)
	}
	w.Clients = append(w.Clients, c)
	return w.Create()
}

// exchangeSweepWhy is why the real runtime cannot play the exchange sweep.
const exchangeSweepWhy = "the sweep sends model-request heads generated from the schema (every transport, method and header case); the real runtime would send llmInference.httpRequestStart at most for its own model calls, with the one head and body it builds, so it cannot be made to send these"

// sendsModelRequests sends, for each generated case of the start method, one HTTP request: its
// head (the case, with the HTTP fields an HTTP library parses made real: an absolute URL, a
// method, ASCII header names and values) and its body in chunks (non-ASCII text in two chunks cut
// at the middle on a character boundary, one empty chunk for an empty body, base64 for a binary
// body). Every frame is validated against its params schema. It then waits for every response
// to end.
func (w *engine) sendsModelRequests() error {
	doc, rt, err := w.ScriptedSweep(exchangeSweepWhy)
	if err != nil {
		return err
	}
	s, err := w.Current()
	if err != nil {
		return err
	}
	x := w.exchange
	if x == nil {
		return fmt.Errorf("no request handler was registered in this scenario")
	}
	cases, dropped := doc.CasesOnce(x.start)
	for _, d := range dropped {
		w.Rec.Notef("", "generator: %s case %s left out", x.start.Name, d)
	}
	var played []schemagen.Case
	for _, c := range cases {
		// The HTTP fields are made real below: an edge case taking only edges of them would be
		// the same request as the "all" case.
		if len(c.Edges) > 0 && !slices.ContainsFunc(c.Edges, func(at string) bool {
			return !httpField[strings.SplitN(strings.TrimPrefix(at, "/"), "/", 2)[0]]
		}) {
			continue
		}
		played = append(played, c)
	}
	ids := map[string]bool{}
	for i, c := range played {
		if t, _ := c.Params["transport"].(string); t != "" && t != "http" {
			// A websocket exchange is a message channel the handler opens (openWebSocket), not
			// one request and response: not played here.
			w.Rec.Notef("", "%s case %s: transport %q left out (a message channel, not one HTTP response)", x.start.Name, c.Name, t)
			continue
		}
		e := &sentExchange{caseName: c.Name, start: maps.Clone(c.Params)}
		// The id is the case's, not its position's, so a run with one more case has the same
		// ids for the others (the SDK's responses name it).
		id := fmt.Sprintf("conformance-request-%08x", rpccall.Fingerprint(c.Name))
		for n := 2; ids[id]; n++ {
			id = fmt.Sprintf("conformance-request-%08x-%d", rpccall.Fingerprint(c.Name), n)
		}
		ids[id] = true
		e.start["requestId"] = id
		if _, has := e.start["sessionId"]; has {
			e.start["sessionId"] = s.ID
		}
		e.start["url"] = fmt.Sprintf("https://models.conformance.test/v1/chat/completions?case=%d", i+1)
		e.start["headers"] = map[string]any{"content-type": []any{"application/json"}, "x-conformance-case": []any{fmt.Sprint(i + 1)}, "x-conformance-multi": []any{"a", "b"}}
		switch {
		case i == 0: // the required-only case: no body, as for a GET
			e.start["method"] = "GET"
			e.chunks = []map[string]any{{"requestId": id, "data": "", "end": true}}
		case i == len(played)-1: // bytes that are not UTF-8, base64 on the wire
			e.start["method"] = "POST"
			e.start["headers"].(map[string]any)["content-type"] = []any{"application/octet-stream"}
			e.body = []byte{0x00, 0xff, 0xfe, 'c', 'a', 's', 'e', byte('0' + i%10), 0x80}
			e.chunks = []map[string]any{{"requestId": id, "data": base64.StdEncoding.EncodeToString(e.body), "binary": true, "end": true}}
		default:
			e.start["method"] = "POST"
			text := fmt.Sprintf(`{"case":%d,"messages":[{"role":"user","content":"héllo ✓ 日本語 🚀 %d"}]}`, i+1, i+1)
			e.body = []byte(text)
			cut := len(text) / 2
			for !utf8.RuneStart(text[cut]) {
				cut++
			}
			e.chunks = []map[string]any{{"requestId": id, "data": text[:cut]}, {"requestId": id, "data": text[cut:], "end": true}}
		}
		if err := doc.ValidateParams(x.start, e.start); err != nil {
			return fmt.Errorf("the %s of case %s violates its params schema: %v", x.start.Name, c.Name, err)
		}
		for _, ch := range e.chunks {
			if err := doc.ValidateParams(x.chunk, ch); err != nil {
				return fmt.Errorf("a %s of case %s violates its params schema: %v", x.chunk.Name, c.Name, err)
			}
		}
		w.exchange.sent = append(w.exchange.sent, e)
	}
	d, err := w.T.Driver(w.Ctx)
	if err != nil {
		return err
	}
	d.SetSink(w.DriverLine)
	defer d.SetSink(nil)
	w.Expect(len(x.sent))
	for done, e := range x.sent {
		w.CaseSends(x.start.Name+" "+e.caseName, e.start) // the SDK's responses name its requestId
		for i, p := range append([]map[string]any{e.start}, e.chunks...) {
			m := x.start.Name
			if i > 0 {
				m = x.chunk.Name
			}
			if err := w.Gone(); err != nil {
				return scenario.CutShort(err, done, len(x.sent), e.caseName)
			}
			// The SDK's answers are read from the transcript (exchangeAcknowledged), as a replay
			// reads them.
			if _, err := rt.Ask(s.ID, m, p, false); err != nil {
				if err := w.CallFailed(err, fmt.Sprintf("%s %s", m, p["requestId"])); err != nil {
					return scenario.CutShort(err, done, len(x.sent), e.caseName)
				}
			}
		}
	}
	// Every response ends with a chunk marked end (or an error); an SDK that never finishes
	// one costs one wait for all.
	deadline := time.Now().Add(exchangeWait)
	for time.Now().Before(deadline) && len(w.unfinishedExchanges()) > 0 && d.Alive() {
		time.Sleep(20 * time.Millisecond)
	}
	if err := w.Gone(); err != nil {
		return scenario.CutShort(err, len(x.sent), len(x.sent), "")
	}
	// A driver round trip: the handler's reports written while the SDK served the requests are
	// read before its answer.
	err = w.RoundTrip()
	return err
}

// httpField are the start params made real HTTP (an absolute URL, a method, ASCII headers) and
// the correlation id: an edge case of one is not played.
var httpField = map[string]bool{"requestId": true, "url": true, "method": true, "headers": true}

// exchangeWait bounds the wait for the SDK's responses to the model requests.
const exchangeWait = 10 * time.Second

// sdkFrames are the SDK's requests of method whose params name requestId, in order.
func (w *engine) sdkFrames(method, requestID string) []map[string]any {
	var out []map[string]any
	for _, r := range transcript.Requests(w.Entries(), method) {
		var p map[string]any
		if json.Unmarshal(r.Params, &p) == nil && p["requestId"] == requestID {
			out = append(out, p)
		}
	}
	return out
}

// unfinishedExchanges are the requests whose response has not ended (no chunk marked end, no error).
func (w *engine) unfinishedExchanges() []*sentExchange {
	var out []*sentExchange
	for _, e := range w.exchange.sent {
		done := false
		for _, c := range w.sdkFrames(w.exchange.respChunk, e.start["requestId"].(string)) {
			if c["end"] == true || c["error"] != nil {
				done = true
			}
		}
		if !done {
			out = append(out, e)
		}
	}
	return out
}

// exchangeReports are the handler's reports (rpc.handled) of method, by requestId.
func (w *engine) exchangeReports(method string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, ev := range w.DriverEvents("rpc.handled") {
		if ev["method"] != method {
			continue
		}
		if p, ok := ev["params"].(map[string]any); ok {
			if id, ok := p["requestId"].(string); ok {
				out[id] = ev
			}
		}
	}
	return out
}

// sentExchanges is what the checks of the exchange need: the schema and the requests sent.
func (w *engine) sentExchanges() (*schemagen.Doc, *exchangeSpec, error) {
	doc, err := w.Schemas()
	if err != nil {
		return nil, nil, err
	}
	if w.exchange == nil || len(w.exchange.sent) == 0 {
		return nil, nil, fmt.Errorf("the runtime sent no model request in this scenario")
	}
	return doc, w.exchange, nil
}

// handlerReceivedRequests checks that the handler was called once per request with the head the
// runtime sent (the HTTP method and URL exactly, every header by its case-insensitive name with
// its values, the context fields sessionId, agentId, … under the schema's names) and the body:
// the chunks' data, decoded, joined.
func (w *engine) handlerReceivedRequests() error {
	_, x, err := w.sentExchanges()
	if err != nil {
		return err
	}
	heads := w.exchangeReports(x.start.Name)
	bodies := w.exchangeReports(x.chunk.Name)
	fails := map[string][]string{}
	for _, e := range x.sent {
		id := e.start["requestId"].(string)
		w.Check(x.start.Name, "")
		head := heads[id]
		if head == nil {
			fails[x.start.Name] = append(fails[x.start.Name], fmt.Sprintf("%s (case %s): the application's request handler was never called", id, e.caseName))
			continue
		}
		got, _ := head["params"].(map[string]any)
		unrep := stringSet(head["unrepresentable"])
		for _, k := range slices.Sorted(maps.Keys(e.start)) {
			want := e.start[k]
			g, has := got[k]
			switch {
			case k == "headers":
				for _, d := range headerDiffs(want, g) {
					fails[x.start.Name] = append(fails[x.start.Name], fmt.Sprintf("%s (case %s): /headers/%s", id, e.caseName, d))
				}
			case !has && unrep["/"+k]:
				// the SDK's handler context has no such field (the driver's account)
				fails[x.start.Name] = append(fails[x.start.Name], fmt.Sprintf("%s (case %s): /%s: %s was sent by the runtime, the SDK's request context has no field for it", id, e.caseName, k, jsondiff.Show(want)))
			case !has:
				fails[x.start.Name] = append(fails[x.start.Name], fmt.Sprintf("%s (case %s): /%s: %s was sent by the runtime, the application's handler received it without it", id, e.caseName, k, jsondiff.Show(want)))
			case !sameJSON(want, g):
				fails[x.start.Name] = append(fails[x.start.Name], fmt.Sprintf("%s (case %s): /%s: %s was sent by the runtime, the application's handler received it as %s", id, e.caseName, k, jsondiff.Show(want), jsondiff.Show(g)))
			}
		}
		w.Check(x.chunk.Name, "")
		body := bodies[id]
		if body == nil {
			fails[x.chunk.Name] = append(fails[x.chunk.Name], fmt.Sprintf("%s (case %s): the handler never reported the request body", id, e.caseName))
			continue
		}
		p, _ := body["params"].(map[string]any)
		b, err := chunkBytes(p)
		if err != nil {
			fails[x.chunk.Name] = append(fails[x.chunk.Name], fmt.Sprintf("%s: the body the handler reported: %v", id, err))
		} else if !bytes.Equal(b, e.body) {
			fails[x.chunk.Name] = append(fails[x.chunk.Name], fmt.Sprintf("%s (case %s): the body %q was sent in %d chunks, the application's handler read %q", id, e.caseName, e.body, len(e.chunks), b))
		}
	}
	return jsondiff.GroupedError(fails, "model requests did not reach the application's request handler as the runtime sent them", "methods")
}

// exchangeAcks are the runtime's start and chunk frames in the transcript, in order, each with
// the SDK's answer paired by JSON-RPC id.
func (w *engine) exchangeAcks() []ack {
	x := w.exchange
	type params struct {
		RequestID string `json:"requestId"`
	}
	var acks []ack
	for _, c := range scenario.RuntimeCalls[params](w.Entries(), func(m string) bool { return m == x.start.Name || m == x.chunk.Name }) {
		acks = append(acks, ack{method: c.Method, requestID: scenario.DecodedParams[params](c).RequestID, answer: c.Answer})
	}
	return acks
}

// exchangeAcknowledged checks the SDK's answer to every start and chunk frame: a result, valid
// against the method's result schema.
func (w *engine) exchangeAcknowledged() error {
	doc, x, err := w.sentExchanges()
	if err != nil {
		return err
	}
	acks := w.exchangeAcks()
	fails := map[string][]string{}
	for _, e := range x.sent {
		id := e.start["requestId"].(string)
		for i := range 1 + len(e.chunks) {
			name, nth := x.start.Name, 0
			if i > 0 {
				name, nth = x.chunk.Name, i-1
			}
			m, _ := doc.Method(name)
			w.Check(name+" (answer)", "")
			var mine []ack
			for _, a := range acks {
				if a.method == name && a.requestID == id {
					mine = append(mine, a)
				}
			}
			switch {
			case nth >= len(mine):
				fails[name] = append(fails[name], fmt.Sprintf("%s: frame %d was never sent", id, nth+1))
			case mine[nth].answer == nil:
				fails[name] = append(fails[name], fmt.Sprintf("%s: the SDK never answered frame %d", id, nth+1))
			case mine[nth].answer["error"] != nil:
				fails[name] = append(fails[name], fmt.Sprintf("%s: the SDK answered frame %d with the error %s", id, nth+1, jsondiff.Show(mine[nth].answer["error"])))
			default:
				if err := doc.ValidateResult(m, mine[nth].answer["result"]); err != nil {
					fails[name] = append(fails[name], fmt.Sprintf("%s: the answer to frame %d violates the result schema: %v", id, nth+1, err))
				}
			}
		}
	}
	return jsondiff.GroupedError(fails, "model-request frames were not acknowledged", "methods")
}

// exchangeResponded checks what the SDK sent back for every request: one response start with
// the handler's status and headers (every header the handler set, by its case-insensitive name,
// with its values; the status text where the SDK sends one), then chunks whose data, decoded and
// joined, is the handler's body, the last one marked end and none an error; every frame valid
// against its params schema.
func (w *engine) exchangeResponded() error {
	doc, x, err := w.sentExchanges()
	if err != nil {
		return err
	}
	rs, _ := doc.Method(x.respStart)
	rc, _ := doc.Method(x.respChunk)
	fails := map[string][]string{}
	add := func(m, format string, args ...any) { fails[m] = append(fails[m], fmt.Sprintf(format, args...)) }
	var added []string
	for _, e := range x.sent {
		id := e.start["requestId"].(string)
		w.Check(x.respStart, "")
		starts := w.sdkFrames(x.respStart, id)
		if len(starts) != 1 {
			add(x.respStart, "%s (case %s): %d response starts, want 1", id, e.caseName, len(starts))
		}
		for _, st := range starts {
			if err := doc.ValidateParams(rs, st); err != nil {
				add(x.respStart, "%s: violates the params schema: %v", id, err)
			}
			if n, _ := st["status"].(float64); int(n) != x.response.Status {
				add(x.respStart, "%s (case %s): /status: %d was returned by the handler, the SDK sent %s", id, e.caseName, x.response.Status, jsondiff.Show(st["status"]))
			}
			if t, sent := st["statusText"]; sent && t != x.response.StatusText {
				add(x.respStart, "%s (case %s): /statusText: %q was returned by the handler, the SDK sent %s", id, e.caseName, x.response.StatusText, jsondiff.Show(t))
			}
			want := map[string]any{}
			for k, v := range x.response.Headers {
				want[k] = anyList(v)
			}
			for _, d := range headerDiffs(want, st["headers"]) {
				add(x.respStart, "%s (case %s): /headers/%s", id, e.caseName, d)
			}
			for _, k := range extraHeaders(want, st["headers"]) {
				added = append(added, k)
			}
		}
		w.Check(x.respChunk, "")
		chunks := w.sdkFrames(x.respChunk, id)
		var body []byte
		for i, c := range chunks {
			if err := doc.ValidateParams(rc, c); err != nil {
				add(x.respChunk, "%s: chunk %d violates the params schema: %v", id, i+1, err)
			}
			if c["error"] != nil {
				add(x.respChunk, "%s (case %s): chunk %d ends the response with the error %s", id, e.caseName, i+1, jsondiff.Show(c["error"]))
			}
			if c["end"] == true && i != len(chunks)-1 {
				add(x.respChunk, "%s: chunk %d is marked end, %d more follow", id, i+1, len(chunks)-1-i)
			}
			b, err := chunkBytes(c)
			if err != nil {
				add(x.respChunk, "%s: chunk %d: %v", id, i+1, err)
			}
			body = append(body, b...)
		}
		switch {
		case len(chunks) == 0:
			add(x.respChunk, "%s (case %s): no response chunk", id, e.caseName)
		case chunks[len(chunks)-1]["end"] != true:
			add(x.respChunk, "%s (case %s): the last of %d response chunks is not marked end", id, e.caseName, len(chunks))
		}
		if len(chunks) > 0 && string(body) != x.response.Body {
			add(x.respChunk, "%s (case %s): the handler returned the body %q, the SDK's chunks carry %q", id, e.caseName, x.response.Body, body)
		}
	}
	if len(added) > 0 {
		w.Observe("response headers the SDK added to the handler's", strings.Join(jsondiff.CompactList(added), ", "))
	}
	return jsondiff.GroupedError(fails, "model-request responses did not carry what the application's handler returned", "methods")
}

// chunkBytes decodes a chunk frame's data: base64 when binary, else UTF-8 text.
func chunkBytes(p map[string]any) ([]byte, error) {
	s, _ := p["data"].(string)
	if p["binary"] == true {
		return base64.StdEncoding.DecodeString(s)
	}
	return []byte(s), nil
}

// headerDiffs words how got's headers differ from want's: names compare case-insensitively (HTTP
// names do), values as the list, or joined with ", " where the SDK's header type folds a
// multi-valued header into one value (fetch's Headers does; HTTP makes the two equivalent).
func headerDiffs(want, got any) []string {
	w := foldHeaders(want)
	g := foldHeaders(got)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(w)) {
		gv, ok := g[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: %s was sent, absent from what arrived", k, jsondiff.Show(w[k])))
		case slices.Equal(gv, w[k]) || strings.Join(gv, ", ") == strings.Join(w[k], ", "):
		default:
			out = append(out, fmt.Sprintf("%s: %s was sent, it arrived as %s", k, jsondiff.Show(w[k]), jsondiff.Show(gv)))
		}
	}
	return out
}

// extraHeaders are got's header names want lacks (lower-cased).
func extraHeaders(want, got any) []string {
	w := foldHeaders(want)
	var out []string
	for k := range foldHeaders(got) {
		if _, ok := w[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// foldHeaders reads a JSON headers map (name -> list of values, or one value) by lower-cased name.
func foldHeaders(h any) map[string][]string {
	out := map[string][]string{}
	m, _ := h.(map[string]any)
	for k, v := range m {
		k = strings.ToLower(k)
		switch v := v.(type) {
		case []any:
			for _, s := range v {
				out[k] = append(out[k], fmt.Sprint(s))
			}
		case string:
			out[k] = append(out[k], v)
		}
	}
	return out
}

func anyList(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

func stringSet(v any) map[string]bool {
	out := map[string]bool{}
	l, _ := v.([]any)
	for _, s := range l {
		if s, ok := s.(string); ok {
			out[s] = true
		}
	}
	return out
}

func sameJSON(a, b any) bool {
	return len(jsondiff.Diff(scenario.AsJSONValue(a), scenario.AsJSONValue(b), "")) == 0
}
