package realruntime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Tool names per connection. The real runtime refuses a connection that registers a tool name
// another live connection registered ("External tool name clash: X already registered by another
// connection", measured on 1.0.85), while the scenarios resume a session from a second client
// with the same tools as the first (which is still connected: the real runtime drops a session
// that never had a turn once its last connection ends, so the first cannot leave first). The
// stand-in accepts that, so on the real runtime the proxy plays it: a name another live
// connection holds is forwarded as name_<connection> (recorded as an injected note), the scripted
// model calls the newest registration of the name the script says, and every frame back to the
// SDKs carries the name the SDK registered. What the SDK sent is recorded untouched.
type toolNames struct {
	owner   map[string]string            // registered name -> connection holding it
	renamed map[string]map[string]string // connection -> SDK's name -> forwarded name
	back    map[string]string            // forwarded name -> SDK's name
}

// register records the tools conn registers and returns the names to forward (SDK's name ->
// forwarded name), renaming those another live connection holds.
func (t *toolNames) register(conn string, names []string) map[string]string {
	if t.owner == nil {
		t.owner, t.renamed, t.back = map[string]string{}, map[string]map[string]string{}, map[string]string{}
	}
	out := map[string]string{}
	for _, n := range names {
		fwd := n
		if o, held := t.owner[n]; held && o != conn {
			fwd = n + "_" + conn
		}
		t.owner[fwd] = conn
		if fwd != n {
			if t.renamed[conn] == nil {
				t.renamed[conn] = map[string]string{}
			}
			t.renamed[conn][n] = fwd
			t.back[fwd] = n
		}
		out[n] = fwd
	}
	return out
}

// release forgets conn's registrations (its connection ended; the runtime drops them too).
func (t *toolNames) release(conn string) {
	for n, o := range t.owner {
		if o == conn {
			delete(t.owner, n)
		}
	}
	for _, fwd := range t.renamed[conn] {
		delete(t.back, fwd)
	}
	delete(t.renamed, conn)
}

// restore puts back, in a frame for an SDK, the names the SDKs registered: every JSON string
// equal to a forwarded name (events and requests name the tool as the runtime knows it).
func (t *toolNames) restore(body []byte) ([]byte, []string) {
	var changed []string
	for fwd, n := range t.back {
		q, _ := json.Marshal(fwd)
		if bytes.Contains(body, q) {
			qn, _ := json.Marshal(n)
			body = bytes.ReplaceAll(body, q, qn)
			changed = append(changed, fwd+" -> "+n)
		}
	}
	sort.Strings(changed)
	return body, changed
}

// renameTools renames, in a session.create/resume's params, the tools another live connection
// holds; it says what it renamed ("" for nothing) and tells the model the forwarded names.
func (p *Proxy) renameTools(conn string, params map[string]json.RawMessage) string {
	var tools []map[string]json.RawMessage
	if raw, ok := params["tools"]; !ok || json.Unmarshal(raw, &tools) != nil || len(tools) == 0 {
		return ""
	}
	var names []string
	for _, tl := range tools {
		var n string
		_ = json.Unmarshal(tl["name"], &n)
		names = append(names, n)
	}
	p.mu.Lock()
	fwd := p.tools.register(conn, names)
	p.mu.Unlock()
	var did []string
	for i, tl := range tools {
		if f := fwd[names[i]]; f != names[i] {
			tl["name"], _ = json.Marshal(f)
			did = append(did, fmt.Sprintf("%s as %s", names[i], f))
			p.model.Alias(names[i], f)
		}
	}
	if len(did) == 0 {
		return ""
	}
	params["tools"], _ = json.Marshal(tools)
	return "renamed tool(s) " + strings.Join(did, ", ") + " (the real runtime refuses a tool name another live connection registered; frames back to the SDKs carry the SDK's names)"
}

// restore is toolNames.restore under the lock, noting what it changed.
func (p *Proxy) restore(conn string, body []byte) []byte {
	p.mu.Lock()
	out, changed := p.tools.restore(body)
	p.mu.Unlock()
	if len(changed) > 0 {
		p.rec.Notef(conn, "the proxy restored the SDK's tool name(s) in the next frame from the runtime: %s", strings.Join(changed, ", "))
	}
	return out
}
