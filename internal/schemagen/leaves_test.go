package schemagen

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestViolationsReadTheSameEveryTime: params with every member wrong give one message, its
// leaves sorted, however often they are checked (the validator walks properties in map order;
// shards, replays and diffs compare failure messages).
func TestViolationsReadTheSameEveryTime(t *testing.T) {
	d, err := Load("testdata")
	require.NoError(t, err)
	tried := 0
	for _, m := range d.Methods {
		cases, _, _ := d.Cases(m)
		for _, c := range cases {
			if c.Name != "all" || len(c.Params) < 2 {
				continue
			}
			wrong := map[string]any{}
			for k := range c.Params {
				wrong[k] = []any{[]any{}} // no member of these schemas takes an array of arrays
			}
			first := d.ValidateParams(m, wrong)
			require.Error(t, first, m.Name)
			leaves := strings.Split(first.Error(), "; ")
			assert.True(t, sort.StringsAreSorted(leaves), "%s: %s", m.Name, first)
			for i := 0; i < 20; i++ {
				assert.EqualError(t, d.ValidateParams(m, wrong), first.Error(), m.Name)
			}
			tried++
		}
	}
	require.NotZero(t, tried, "testdata has a method with two or more params")
}
