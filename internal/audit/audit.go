// Package audit checks what a driver declares unsupported against the installed SDK. For every
// capability a driver does not declare, its hello names the SDK symbol whose absence makes it so
// (drivers/PROTOCOL.md "Capability audit"); the SDK's recipe probes that symbol, and a symbol
// that is there after all (an SDK that gained the API, or a driver that never looked) is a
// finding. Without the audit a false "unsupported" passes unseen: nothing else compares a
// driver's answer with the SDK.
package audit

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
)

// Shapes are the capabilities that describe the language or a type's shape, not an API's
// presence, so no symbol's absence explains them (PROTOCOL.md "Capability audit").
var Shapes = map[string]bool{
	"tool.isTerminal.explicitFalse": true, // a plain bool cannot say "false" apart from "unset"
	"session.rpc.tools.set.nil":     true, // the language has no nil list apart from an empty one
	"error.rpc.code":                true, // the SDK's JSON-RPC error type is not public
	"convert.roundtrip":             true, // TypeScript's types are erased: no converter exists at run time
}

// Universe is every capability a driver may declare: the fixed ones of suite.Capabilities, and
// the option families expanded with the option names of drivers/protocol.schema.json.
func Universe(protocolSchema []byte) ([]string, error) {
	var s struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(protocolSchema, &s); err != nil {
		return nil, fmt.Errorf("protocol.schema.json: %w", err)
	}
	families := map[string]string{"session.option.<name>": "SessionOptions", "connect.option.<name>": "ConnectOptions"}
	var out []string
	for _, c := range suite.Capabilities {
		def, family := families[c]
		if !family {
			out = append(out, c)
			continue
		}
		props := s.Defs[def].Properties
		if len(props) == 0 {
			return nil, fmt.Errorf("protocol.schema.json: $defs.%s has no properties", def)
		}
		for name := range props {
			out = append(out, strings.TrimSuffix(c, "<name>")+name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// DriverGap marks a missing entry that is not the SDK's absence but the driver's: a protocol
// capability the driver does not implement yet ("driver: what it lacks"). It is not probed; the
// audit lists it, so a gap is always visible and never passes as the SDK's.
const DriverGap = "driver:"

// Gaps are the capabilities a hello says its driver does not implement yet, with the reason.
func Gaps(h *driver.Hello) map[string]string {
	out := map[string]string{}
	for c, s := range h.Missing {
		if strings.HasPrefix(s, DriverGap) {
			out[c] = strings.TrimSpace(strings.TrimPrefix(s, DriverGap))
		}
	}
	return out
}

// Symbols are the SDK symbols a hello names as missing, one per undeclared capability.
func Symbols(h *driver.Hello) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range h.Missing {
		if !seen[s] && !strings.HasPrefix(s, DriverGap) {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// Check lists what is wrong with a driver's hello, given whether the installed SDK has each
// symbol (present): an undeclared capability of universe with no missing symbol (shapes aside),
// a symbol the SDK has after all, and a missing symbol for a capability declared true.
func Check(h *driver.Hello, universe []string, present map[string]bool) []string {
	var problems []string
	for _, c := range universe {
		sym, named := h.Missing[c]
		switch {
		case h.Capabilities[c] && named:
			problems = append(problems, fmt.Sprintf("%s is declared true but hello names %q as missing", c, sym))
		case h.Capabilities[c], Shapes[c] && !named:
		case !named:
			problems = append(problems, fmt.Sprintf("%s is unsupported but hello names no missing SDK symbol for it (missing[%q])", c, c))
		case strings.HasPrefix(sym, DriverGap):
			if strings.TrimSpace(strings.TrimPrefix(sym, DriverGap)) == "" {
				problems = append(problems, fmt.Sprintf("%s: a driver gap says what the driver lacks", c))
			}
		default:
			has, probed := present[sym]
			switch {
			case !probed:
				problems = append(problems, fmt.Sprintf("%s: the probe did not answer for %q", c, sym))
			case has:
				problems = append(problems, fmt.Sprintf("%s is unsupported, but %s %s has %s: implement it through that API or name the symbol that is really absent",
					c, h.SDK, h.Version, sym))
			}
		}
	}
	for c := range h.Missing {
		if !slices.Contains(universe, c) {
			problems = append(problems, fmt.Sprintf("missing names %q, which is not a capability", c))
		}
	}
	sort.Strings(problems)
	return problems
}

// Generated is the capability of the SDK's generated RPC layer (the schema sweeps need it).
const Generated = "rpc.generated"

// CheckGenerated holds a hello against where the installed SDK keeps its generated RPC layer
// (layer, read from the SDK's files by its recipe; "" when it has none): a layer the SDK has is
// never reported missing, whatever symbol the driver named (a driver looking in the package of
// another SDK version names a symbol that is absent there too, and Check alone passes it).
func CheckGenerated(h *driver.Hello, layer string) []string {
	if layer == "" || h.Capabilities[Generated] {
		return nil
	}
	return []string{fmt.Sprintf("%s is unsupported, but %s %s ships its generated layer (%s): the driver looked in the wrong place",
		Generated, h.SDK, h.Version, layer)}
}
