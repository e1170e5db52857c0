package harness

import (
	"fmt"
	"io"
	"os"

	"github.com/copilot-sdk-conformance/conformance/internal/limits"
)

// checkRoom stops a run whose report folder, temporary folder or cache has no room before any
// SDK is prepared: a full disk would otherwise read as every SDK failing.
func checkRoom(cfg Config) error {
	if err := limits.Space(cfg.ReportDir, os.TempDir(), cfg.CacheRoot); err != nil {
		return fmt.Errorf("%w: %v", ErrSetup, err)
	}
	return nil
}

// fitJobs is cfg.Jobs, or fewer when units SDKs running that many scenarios each would run out of
// open files (under `ulimit -n 256` a run lost about a third of its results to "too many open
// files"); it says so when it lowers it.
func fitJobs(jobs, units int, log io.Writer) int {
	limit, err := limits.OpenFiles()
	if err != nil {
		return jobs
	}
	fit := limits.Jobs(jobs, units, limit)
	if fit < jobs {
		fmt.Fprintf(log, "open-file limit %d: running %d scenarios of each of %d SDKs at once, not %d (raise it with ulimit -n)\n", limit, fit, units, jobs)
	}
	return fit
}
