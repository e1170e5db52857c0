package canon

import (
	"fmt"
	"maps"
	"slices"
)

// Difference is one JSON path where the SDKs' normalized payloads differ.
type Difference struct {
	Path   string            `json:"path"`
	Values map[string]string `json:"values"` // SDK -> shown value (Absent when missing)
}

// Diff compares one normalized value per SDK and lists the paths where they differ, descending
// into objects and arrays only while every SDK has a container of the same kind there, so a
// missing subtree is reported once at its root.
func Diff(bySDK map[string]any) []Difference {
	names := slices.Sorted(maps.Keys(bySDK))
	var out []Difference
	var walk func(path string, vals map[string]any, present map[string]bool)
	walk = func(path string, vals map[string]any, present map[string]bool) {
		allMaps, allArrays := true, true
		for _, n := range names {
			if !present[n] {
				allMaps, allArrays = false, false
				break
			}
			if _, ok := vals[n].(map[string]any); !ok {
				allMaps = false
			}
			if _, ok := vals[n].([]any); !ok {
				allArrays = false
			}
		}
		switch {
		case allMaps:
			keys := map[string]bool{}
			for _, n := range names {
				for k := range vals[n].(map[string]any) {
					keys[k] = true
				}
			}
			for _, k := range slices.Sorted(maps.Keys(keys)) {
				sub, subPresent := map[string]any{}, map[string]bool{}
				for _, n := range names {
					sub[n], subPresent[n] = vals[n].(map[string]any)[k]
				}
				walk(join(path, k), sub, subPresent)
			}
		case allArrays:
			longest := 0
			for _, n := range names {
				longest = max(longest, len(vals[n].([]any)))
			}
			for i := 0; i < longest; i++ {
				sub, subPresent := map[string]any{}, map[string]bool{}
				for _, n := range names {
					if arr := vals[n].([]any); i < len(arr) {
						sub[n], subPresent[n] = arr[i], true
					}
				}
				walk(fmt.Sprintf("%s[%d]", path, i), sub, subPresent)
			}
		default:
			shown := map[string]string{}
			distinct := map[string]bool{}
			for _, n := range names {
				shown[n] = Show(vals[n], present[n])
				distinct[shown[n]] = true
			}
			if len(distinct) > 1 {
				out = append(out, Difference{Path: path, Values: shown})
			}
		}
	}
	present := map[string]bool{}
	for _, n := range names {
		present[n] = true
	}
	walk("", bySDK, present)
	return out
}
