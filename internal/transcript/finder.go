package transcript

// finder finds a set of strings (each at least two bytes) in a text in one pass: a bit per
// possible first two bytes says where a string may start, and only there are the strings with
// those two bytes compared. Hand-written because the Aho-Corasick library used before made one
// interface call per byte of text: Scrub read 87 MB/s with 80 secrets registered
// (BenchmarkScrub), and scrubbing every frame and report byte was a tenth of the harness's CPU
// in a whole run. Texts here are JSON and logs where the two-byte starts of secrets and
// credential shapes are rare, so this reads several hundred MB/s. FuzzFinder checks it against
// strings.Index.
type finder struct {
	fold     bool      // ASCII case-insensitive (the patterns are stored lower-case)
	norm     [256]byte // each byte as compared: lower-cased with fold, else itself
	starts   [1 << 16 / 64]uint64
	patterns []string
	byStart  map[uint16][]int // pattern indexes by their first two bytes
}

func newFinder(fold bool, patterns []string) *finder {
	f := &finder{fold: fold, byStart: map[uint16][]int{}}
	for c := range f.norm {
		f.norm[c] = byte(c)
		if fold {
			f.norm[c] = lowerASCII(byte(c))
		}
	}
	for i, p := range patterns {
		if fold {
			b := []byte(p)
			for j, c := range b {
				b[j] = lowerASCII(c)
			}
			p = string(b)
		}
		f.patterns = append(f.patterns, p)
		k := uint16(p[0])<<8 | uint16(p[1])
		f.starts[k/64] |= 1 << (k % 64)
		f.byStart[k] = append(f.byStart[k], i)
	}
	return f
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// each calls fn(pattern index, start) for every occurrence of every pattern in s, overlapping
// ones included, by start then by pattern order, until fn returns false.
func (f *finder) each(s string, fn func(pat, start int) bool) {
	if len(s) < 2 {
		return
	}
	prev := f.norm[s[0]]
	for i := 1; i < len(s); i++ {
		c := f.norm[s[i]]
		k := uint16(prev)<<8 | uint16(c)
		prev = c
		if f.starts[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for _, p := range f.byStart[k] {
			if f.at(s, i-1, f.patterns[p]) && !fn(p, i-1) {
				return
			}
		}
	}
}

// any says whether s holds any pattern.
func (f *finder) any(s string) bool {
	found := false
	f.each(s, func(int, int) bool { found = true; return false })
	return found
}

func (f *finder) at(s string, i int, p string) bool {
	if len(s)-i < len(p) {
		return false
	}
	if !f.fold {
		return s[i:i+len(p)] == p
	}
	for j := 0; j < len(p); j++ {
		if f.norm[s[i+j]] != p[j] {
			return false
		}
	}
	return true
}
