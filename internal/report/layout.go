package report

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strings"
)

// The report folder's layout, in one place: every writer asks here where its file goes.

// TranscriptsDir holds one transcript per scenario and SDK.
const TranscriptsDir = "transcripts"

var unsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// TranscriptRel is a transcript's path relative to the report folder: stable across runs and
// machines, so results from shards and runs can be merged and compared.
func TranscriptRel(sdk, feature, scenario string) string {
	slug := strings.Trim(unsafe.ReplaceAllString(scenario, "-"), "-")
	if len(slug) > 120 {
		slug = slug[:120]
	}
	sum := sha256.Sum256([]byte(scenario)) // keeps names that differ only in punctuation apart
	// Each folder of the feature's path is made safe too, so that no feature path ("../x",
	// "/abs") can place a transcript outside the report folder.
	dirs := strings.FieldsFunc(strings.TrimSuffix(feature, ".feature"), func(r rune) bool { return r == '/' || r == '\\' })
	for i, d := range dirs {
		if d = unsafe.ReplaceAllString(d, "-"); d == "." || d == ".." {
			d = "-"
		}
		dirs[i] = d
	}
	return filepath.ToSlash(filepath.Join(TranscriptsDir, sdk, filepath.Join(dirs...), slug+"-"+hex.EncodeToString(sum[:3])+".ndjson"))
}

// CucumberPath is where godog's step-level cucumber JSON for one SDK goes.
func CucumberPath(dir, sdk string) string { return filepath.Join(dir, "cucumber", sdk+".json") }

// DriverLogPath is where a driver's stderr goes.
func DriverLogPath(dir, sdk string) string { return filepath.Join(dir, "driver-"+sdk+".stderr.log") }
