// Package text holds the small string helpers every stage of the pipeline shares (a message's
// first line, its tail, a shell word), so each has one definition.
package text

import "strings"

// FirstLine is s up to its first newline (all of s when it has none). Callers that want the
// first line of what s says, not of its layout, trim it first.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// ShellWord makes one shell word of s: as is when it holds only characters no POSIX shell
// treats specially, else single-quoted (a rerun command is pasted into a shell).
func ShellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '=' || r == '@' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Tail is s trimmed, cut to its last n bytes (marked with a leading …) when longer: the end of
// a command's output, where its error is.
func Tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}
