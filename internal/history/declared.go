package history

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
)

// declared is what one version's run records about what the SDK declares: the methods it sent
// in any scenario, those its generated layer lacks (the generated sweep's unsupported answers),
// the schema's methods, and the fields its surface declares. All of it comes from the run's
// results.json (its coverage and the surface scenarios' observations), none from a list.
type declared struct {
	version string
	// sent is every method the SDK sent in some scenario; nil when the run has no coverage.
	sent map[string]bool
	// notGenerated: method -> the sweep's reason it was not sent ("unsupported: … is not in
	// this SDK's generated layer").
	notGenerated map[string]string
	// catalog is the schema's methods (both directions); nil when the run loaded no schema.
	catalog map[string]bool
	// surface: "surface <request> <field>" -> where the field went.
	surface map[string]string
}

func declarations(res *report.Results, sdk, version string) declared {
	d := declared{version: version, notGenerated: map[string]string{}, surface: map[string]string{}}
	if res == nil {
		return d
	}
	mine := func(label string) bool { return label == sdk || label == sdk+"@"+version }
	if c := res.Coverage; c != nil {
		d.sent = map[string]bool{}
		for _, m := range c.Exercised {
			if m.Direction == "sent" && slices.ContainsFunc(m.SDKs, mine) {
				d.sent[m.Method] = true
			}
		}
		if len(c.Catalog) > 0 {
			d.catalog = map[string]bool{}
			for _, it := range c.Catalog {
				if it.Kind != "event" {
					d.catalog[it.Name] = true
				}
			}
		}
		for _, s := range c.Sweep {
			if !mine(s.SDK) {
				continue
			}
			for _, u := range s.Uncovered {
				if u.Kind == "method" && strings.HasPrefix(u.Reason, "unsupported: ") {
					d.notGenerated[u.Name] = strings.TrimPrefix(u.Reason, "unsupported: ")
				}
			}
		}
	}
	for _, r := range res.Results {
		if r.SDK != sdk {
			continue
		}
		for k, v := range r.Observations {
			if strings.HasPrefix(k, surface.ObservationPrefix) {
				d.surface[k] = v
			}
		}
	}
	return d
}

// explain marks each payload change of one scenario that the two versions' declarations
// explain:
//   - a request now sent (path "") whose method the previous version's generated layer lacked,
//     that the previous run's schema did not have, or that the previous version sent in no
//     scenario at all: method-generated. The last reason alone does not do when the scenario
//     also no longer sends some request for no declared reason: the new method replaces it
//     (session.destroy → session.detach), a change of what an existing call sends;
//   - a field gained that the new version's surface newly declares (a "surface <request>
//     <field>" observation the previous version did not have, at that path): field-declared;
//   - one more request of a method the previous version sent too, in a scenario that records
//     surface declarations the previous version's run of it did not (newly, the probe sets
//     each declared field alone: one request more per field): field-declared;
//   - a request no longer sent whose method the new run's schema no longer has, or the new
//     version's generated layer lacks: method-removed.
//
// Anything else, a change in what an existing method or field puts on the wire, is left
// unexplained (a silent wire change when the status did not change).
func explain(ps []Payload, prev, cur declared, newly []string) {
	replaced := false
	for i := range ps {
		p := &ps[i]
		if p.Path != "" || p.Before != "sent" {
			continue
		}
		method := methodOf(p.Request)
		switch {
		case prev.catalog[method] && cur.catalog != nil && !cur.catalog[method]:
			p.Explained, p.Because = MethodRemoved, fmt.Sprintf("the schema of %s's run no longer has %s", cur.version, method)
		case cur.notGenerated[method] != "":
			p.Explained, p.Because = MethodRemoved, fmt.Sprintf("%s's generated sweep: %s", cur.version, cur.notGenerated[method])
		default:
			replaced = true
		}
	}
	for i := range ps {
		p := &ps[i]
		method := methodOf(p.Request)
		switch {
		case p.Path == "" && p.After == "sent":
			switch {
			case prev.notGenerated[method] != "":
				p.Explained, p.Because = MethodGenerated, fmt.Sprintf("%s's generated sweep: %s", prev.version, prev.notGenerated[method])
			case cur.catalog[method] && prev.catalog != nil && !prev.catalog[method]:
				p.Explained, p.Because = MethodGenerated, fmt.Sprintf("the schema of %s's run did not have %s", prev.version, method)
			case prev.sent != nil && !prev.sent[method] && !replaced:
				p.Explained, p.Because = MethodGenerated, fmt.Sprintf("%s sent %s in no scenario", prev.version, method)
			case prev.sent[method] && len(newly) > 0:
				p.Explained, p.Because = FieldDeclared, fmt.Sprintf("one %s more per field the scenario's surface probe newly declares on %s (%s)",
					method, cur.version, clipList(newly, 3))
			}
		case p.Path != "" && p.Before == canon.Absent:
			if k := newlyDeclared(method, p.Path, prev, cur); k != "" {
				p.Explained, p.Because = FieldDeclared, fmt.Sprintf("%s's surface newly declares %q (%s)", cur.version,
					strings.TrimPrefix(k, surface.ObservationPrefix), cur.surface[k])
			}
		}
	}
}

func methodOf(request string) string {
	m, _, _ := strings.Cut(request, "#")
	return m
}

// newlyDeclared is the surface observation of the new version only that puts a field at path
// of method's params ("" when none): its value names where the field went ("featureFlags",
// "connect.clientInfo | not sent", `gitHubTokenProviderRegistrationId="<uuid>"` for a handler),
// or, failing that, its field is the path's first key.
func newlyDeclared(method, path string, prev, cur declared) string {
	top := path
	if i := strings.IndexAny(top, ".["); i >= 0 {
		top = top[:i]
	}
	for _, k := range slices.Sorted(maps.Keys(cur.surface)) {
		if _, old := prev.surface[k]; old {
			continue
		}
		request, field, ok := strings.Cut(strings.TrimPrefix(k, surface.ObservationPrefix), " ")
		if !ok {
			continue
		}
		if request == method && surface.Normalize(strings.TrimPrefix(field, surface.HandlerPrefix)) == surface.Normalize(top) {
			return k
		}
		for _, part := range strings.FieldsFunc(cur.surface[k], func(r rune) bool { return r == '|' || r == ',' }) {
			part = strings.TrimSpace(part)
			part, _, _ = strings.Cut(part, "=") // a handler's registration: key=value
			at, where := request, part
			if strings.HasPrefix(part, method+".") {
				at, where = method, strings.TrimPrefix(part, method+".")
			}
			if at == method && where != "" && (path == where || strings.HasPrefix(path, where+".") || strings.HasPrefix(path, where+"[")) {
				return k
			}
		}
	}
	return ""
}

// explainedKind is the kind of a scenario's payload changes when every one is explained (the
// first of Explained among them), else "".
func explainedKind(ps []Payload) string {
	if len(ps) == 0 {
		return ""
	}
	best := len(Explained)
	for _, p := range ps {
		i := slices.Index(Explained, p.Explained)
		if i < 0 {
			return ""
		}
		best = min(best, i)
	}
	return Explained[best]
}

// probed lists the surface declarations a scenario's result records on the new version and not
// on the previous one ("session.create featureflags").
func probed(before, after report.Result) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(after.Observations)) {
		if _, old := before.Observations[k]; !old && strings.HasPrefix(k, surface.ObservationPrefix) {
			out = append(out, strings.TrimPrefix(k, surface.ObservationPrefix))
		}
	}
	return out
}

func clipList(l []string, n int) string {
	if len(l) <= n {
		return strings.Join(l, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(l[:n], ", "), len(l)-n)
}
