// Package rpccall is what the sweeps that call the runtime's methods through the SDK's generated
// layer share (the schema sweep, the cancel sweep): the target a group's methods are called on
// and a generated case's params as the driver gets them.
package rpccall

import (
	"fmt"
	"hash/fnv"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// Setup is what both sweeps need: the schemas, the stand-in answering with generated
// results, and the handle the group's methods are called through.
func Setup(w *scenario.Scenario, group string) (*schemagen.Doc, *standin.Server, map[string]any, error) {
	doc, err := w.Schemas()
	if err != nil {
		return nil, nil, nil, err
	}
	if has, note := w.T.Capability("rpc.generated"); !has {
		return nil, nil, nil, &scenario.ErrUnsupported{Reason: fmt.Sprintf("%s driver has no rpc/rpcBatch: %s", w.T.SDK(), note), Capability: "rpc.generated"}
	}
	rt, err := w.StandIn("runtime.script.generatedAnswers")
	if err != nil {
		return nil, nil, nil, err
	}
	rt.SetGeneratedAnswers()
	target := map[string]any{}
	switch group {
	case "server":
		c, err := w.Client()
		if err != nil {
			return nil, nil, nil, err
		}
		target["client"] = c
	case "session":
		s, err := w.Current()
		if err != nil {
			return nil, nil, nil, err
		}
		target["session"] = s.Handle
	default:
		return nil, nil, nil, fmt.Errorf("the schema's SDK-to-runtime groups are server and session, not %q", group)
	}
	return doc, rt, target, nil
}

// Params are a case's params as the driver gets them: without the sessionId the SDK sets,
// each secret its own value.
func Params(doc *schemagen.Doc, m schemagen.Method, c schemagen.Case) map[string]any {
	params := scenario.AsJSON(SecretsApart(WithoutSessionID(c.Params, m.Group), m.Name))
	if c.Params != nil && doc.ValidateParams(m, WithSessionOf(params, c.Params)) != nil {
		params = scenario.AsJSON(WithoutSessionID(c.Params, m.Group)) // the schema constrains the secret's form
	}
	return params
}

// SecretsApart gives every value under a key the transcript records as a secret (token,
// gitHubToken, …) a value of its own: a secret is scrubbed from every report wherever it occurs,
// so a generated string shared with other fields (the non-ASCII edge) would vanish from them.
// The value is a hash of the method and the secret's path, so the same secret of the same case
// has the same fingerprint in every run and SDK (a count in map order gave each run its own).
func SecretsApart(v map[string]any, seed string) map[string]any {
	var walk func(x any, at string) any
	walk = func(x any, at string) any {
		switch x := x.(type) {
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, val := range x {
				if _, ok := val.(string); ok && transcript.SecretKey(k) {
					out[k] = fmt.Sprintf("tok-%08x", Fingerprint(seed+" "+at+"/"+k))
					continue
				}
				out[k] = walk(val, at+"/"+k)
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, val := range x {
				out[i] = walk(val, fmt.Sprintf("%s/%d", at, i))
			}
			return out
		}
		return x
	}
	if v == nil {
		return nil
	}
	return walk(v, "").(map[string]any)
}

// Fingerprint is a short hash of s, the same in every run: a generated value of its own.
func Fingerprint(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// WithSessionOf puts the generated sessionId back for validation against the params schema.
func WithSessionOf(p, orig map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range p {
		out[k] = v
	}
	if sid, ok := orig["sessionId"]; ok {
		out["sessionId"] = sid
	}
	return out
}

// WithoutSessionID is a session method's params without the sessionId the SDK sets itself.
func WithoutSessionID(p map[string]any, group string) map[string]any {
	if p == nil || group != "session" {
		return p
	}
	out := make(map[string]any, len(p))
	for k, v := range p {
		if k != "sessionId" {
			out[k] = v
		}
	}
	return out
}
