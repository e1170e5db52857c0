package sdks

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every language is one folder under drivers/ and one recipe: the two lists must agree, and
// each driver's own project must pin the same SDK version as fixtures/sdks.yaml.
func TestEveryDriverHasARecipeAndTheSamePin(t *testing.T) {
	entries, err := os.ReadDir("../../drivers")
	require.NoError(t, err)
	var folders []string
	for _, e := range entries {
		if e.IsDir() {
			folders = append(folders, e.Name())
		}
	}
	assert.ElementsMatch(t, folders, Names(), "drivers/ folders and registered recipes")
	pins, err := LoadPins("../../fixtures/sdks.yaml")
	require.NoError(t, err)
	orders := map[int]string{}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			d, _ := Lookup(name)
			if prev, dup := orders[d.Order]; dup {
				t.Errorf("recipes %s and %s share Order %d", prev, name, d.Order)
			}
			orders[d.Order] = name
			require.NotNil(t, d.Pinned, "the recipe says where the driver pins its SDK")
			got, err := d.Pinned(filepath.Join("../../drivers", name))
			require.NoError(t, err)
			assert.Equal(t, pins[name].Version, got, "drivers/%s pins the version of fixtures/sdks.yaml", name)
		})
	}
}

// Two preparations of one cache key never run at once.
func TestLockKeySerializes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.lock")
	var mu sync.Mutex
	inside, maxInside := 0, 0
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := lockKey(context.Background(), path)
			require.NoError(t, err)
			mu.Lock()
			inside++
			maxInside = max(maxInside, inside)
			mu.Unlock()
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			inside--
			mu.Unlock()
			unlock()
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, maxInside)
}
