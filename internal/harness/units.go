package harness

import (
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
)

// unit is one SDK@version of a run: its own preparation, driver, transcripts and results.
// --sdk-version node=1.0.8,1.0.14 makes two units of node.
type unit struct {
	sdk     string
	version string // the version to install ("" is never used: the pin fills it in)
	// label names the unit in report paths and progress: the SDK alone when the run has one
	// version of it (the single-version layout stays as it was), SDK@version when several.
	label string
	// explicit is a version asked for with --sdk-version (rerun commands then name it).
	explicit bool
	// lead and yield: the unit's preparation is the first of the longest expected, or shorter
	// than that (runner.Target.Lead and Yield).
	lead, yield bool
}

// markLead marks the first unit whose SDK's cold preparation (sdks.Recipe.ColdPrepare) is the
// longest of the units' as the lead, and the shorter ones as yielding: the run's scenarios wait
// for the longest.
func markLead(us []unit) {
	cold := func(sdk string) time.Duration {
		r, _ := sdks.Lookup(sdk)
		return r.ColdPrepare
	}
	var longest time.Duration
	for _, u := range us {
		longest = max(longest, cold(u.sdk))
	}
	led := false
	for i := range us {
		us[i].yield = cold(us[i].sdk) < longest
		us[i].lead = !led && !us[i].yield
		led = led || us[i].lead
	}
}

// units expands the plan's SDKs into one unit per version asked for (the pin when none).
func units(cfg Config, p *plan, names []string) []unit {
	var out []unit
	for _, name := range names {
		vs := cfg.Versions[name]
		if len(vs) == 0 {
			out = append(out, unit{sdk: name, version: p.pins[name].Version, label: name})
			continue
		}
		for _, v := range vs {
			u := unit{sdk: name, version: v, label: name, explicit: true}
			if len(vs) > 1 {
				u.label = report.Target(name, v)
			}
			out = append(out, u)
		}
	}
	return out
}

// shardVersion is the version part of a unit's shard key.
func (u unit) shardVersion(cfg Config) string {
	if cfg.Sources[u.sdk] != "" {
		return "source"
	}
	return u.version
}
