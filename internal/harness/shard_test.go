package harness

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		err  bool
	}{
		{"1/1", Shard{1, 1}, false},
		{"3/4", Shard{3, 4}, false},
		{"0/4", Shard{}, true},
		{"5/4", Shard{}, true},
		{"2", Shard{}, true},
		{"a/b", Shard{}, true},
		{"1/0", Shard{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseShard(tt.in)
			if tt.err {
				assert.ErrorContains(t, err, "want I/N")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestShardsPartitionThePlan: the shards of a plan are disjoint, cover it, differ in size by at
// most one, agree on the plan hash, and come out the same every time.
func TestShardsPartitionThePlan(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	for _, n := range []int{1, 3, 4, 7} {
		cfg := Config{RepoRoot: root, SDKs: []string{"node", "go", "python"}}
		cfg = cfg.withDefaults()
		p, err := makePlan(cfg)
		require.NoError(t, err)
		seen := map[string]int{}
		var plan string
		for i := 1; i <= n; i++ {
			cfg.Shard = Shard{i, n}
			sel := selectShard(cfg, p)
			again := selectShard(cfg, p)
			assert.Equal(t, sel.bySDK, again.bySDK, "deterministic")
			if plan == "" {
				plan = sel.info.Plan
			}
			assert.Equal(t, plan, sel.info.Plan, "one plan hash for every shard")
			assert.InDelta(t, float64(sel.info.Keys)/float64(n), sel.info.Selected, 1, "shard %d/%d is even", i, n)
			for sdk, m := range sel.bySDK {
				for sc := range m {
					seen[sdk+"\t"+sc]++
				}
			}
		}
		assert.Len(t, seen, len(p.scenarios)*3, "%d shards cover the matrix", n)
		for k, c := range seen {
			assert.Equal(t, 1, c, "%s is in exactly one of %d shards", k, n)
		}
	}
	cfg := Config{RepoRoot: root, SDKs: []string{"go"}}
	cfg = cfg.withDefaults()
	p, err := makePlan(cfg)
	require.NoError(t, err)
	cfg.Shard = Shard{1, 2}
	a := selectShard(cfg, p).info.Plan
	cfg.Versions = map[string][]string{"go": {"v0.0.1"}}
	assert.NotEqual(t, a, selectShard(cfg, p).info.Plan, "another version is another plan")

	// Two versions of one SDK: each SDK@version is its own column of the matrix.
	cfg.Versions = map[string][]string{"go": {"v1.0.8", "v1.0.9"}}
	cells := 0
	for i := 1; i <= 2; i++ {
		cfg.Shard = Shard{i, 2}
		sel := selectShard(cfg, p)
		assert.Equal(t, 2*len(p.scenarios), sel.info.Keys)
		for label, m := range sel.bySDK {
			assert.Contains(t, []string{"go@v1.0.8", "go@v1.0.9"}, label)
			cells += len(m)
		}
	}
	assert.Equal(t, 2*len(p.scenarios), cells, "the two shards cover both versions of every scenario")
}
