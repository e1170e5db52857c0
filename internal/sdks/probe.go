package sdks

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
)

// The capability audit (drivers/PROTOCOL.md "Capability audit"): a driver names, for every
// capability it declares false, the SDK symbol whose absence makes it so, in its language's own
// notation; each recipe's Probe says whether the prepared SDK has that symbol, so an SDK that
// gains the API turns the audit red. The probes read the SDK as its language sees it (import
// and introspection, go doc, javap) or, where the language has no runtime reflection of the
// declarations (TypeScript declarations, Rust), scan the package's declarations.

// Probe says, for each symbol, whether the SDK prepared in prep has it.
type Probe func(ctx context.Context, prep *Prepared, symbols []string) (map[string]bool, error)

// probeCommand runs argv in dir and returns its stdout; a failure carries stderr's tail.
func probeCommand(ctx context.Context, dir string, env []string, argv ...string) ([]byte, []byte, error) {
	cmd := procgroup.Command(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := procgroup.Run(cmd)
	return out.Bytes(), errOut.Bytes(), err
}

// readSources concatenates every file under dir whose name ends in one of exts.
func readSources(dir string, exts ...string) (string, error) {
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		for _, x := range exts {
			if strings.HasSuffix(path, x) {
				body, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				b.Write(body)
				b.WriteByte('\n')
				break
			}
		}
		return nil
	})
	if err == nil && b.Len() == 0 {
		err = fmt.Errorf("no %s files under %s", strings.Join(exts, ", "), dir)
	}
	return b.String(), err
}

// blocks returns the brace-delimited body following each match of open (which must end at the
// opening brace). Hand-written because the declarations are scanned, not compiled: braces in
// strings or comments are rare enough in declaration files that a plain count serves.
func blocks(text string, open *regexp.Regexp) []string {
	var out []string
	for _, m := range open.FindAllStringIndex(text, -1) {
		depth, start := 0, m[1]-1
		for i := start; i < len(text); i++ {
			switch text[i] {
			case '{':
				depth++
			case '}':
				depth--
			}
			if depth == 0 {
				out = append(out, text[start:i+1])
				break
			}
		}
	}
	return out
}

// anyMatch says whether re matches any of the texts.
func anyMatch(re *regexp.Regexp, texts []string) bool {
	for _, t := range texts {
		if re.MatchString(t) {
			return true
		}
	}
	return false
}

// splitMember splits "Owner<sep>member" at the last sep; member is "" without one.
func splitMember(symbol, sep string) (owner, member string) {
	i := strings.LastIndex(symbol, sep)
	if i < 0 {
		return symbol, ""
	}
	return symbol[:i], symbol[i+len(sep):]
}
