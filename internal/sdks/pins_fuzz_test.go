package sdks

import (
	"slices"
	"testing"
)

// FuzzParsePins: any sdks.yaml either loads into known SDKs with versions or is an error naming
// the file; it never panics.
func FuzzParsePins(f *testing.F) {
	f.Add([]byte("node:\n  package: \"@github/copilot-sdk\"\n  registry: npm\n  version: 1.0.14\n"))
	f.Add([]byte("go: {package: github.com/github/copilot-sdk/go, version: v1.0.14}\ncobol: {version: 1}\n"))
	f.Add([]byte("python: [1, 2]\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pins, err := ParsePins(b, "sdks.yaml")
		if err != nil {
			return
		}
		for name, p := range pins {
			if !slices.Contains(Names(), name) || p.Version == "" {
				t.Fatalf("accepted pin %q %+v", name, p)
			}
		}
	})
}
