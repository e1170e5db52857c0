//go:build !unix

package campaign

import "time"

// selfCPU is unknown where getrusage is not available.
func selfCPU() (time.Duration, bool) { return 0, false }
