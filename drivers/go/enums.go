package main

// Enum values of the SDK's named string types (AskUserVariant, …): reflection sees only
// `string`, so the declared constants are read from the SDK's own source with go/parser, in the
// module folder this binary was built from (the module cache, or the --sdk-source folder).

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

var (
	enumOnce  sync.Once
	enumConst map[string][]string // "pkgpath.Type" -> values, in declaration order
)

// enumValues are the string constants the SDK declares of type t, or nil.
func enumValues(t reflect.Type) []string {
	if t.Kind() != reflect.String || t.PkgPath() == "" || !strings.HasPrefix(t.PkgPath(), sdkModule) {
		return nil
	}
	enumOnce.Do(loadEnums)
	return enumConst[t.PkgPath()+"."+t.Name()]
}

// sdkDir is the folder of the SDK module this binary was built with.
func sdkDir() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path != sdkModule {
			continue
		}
		if r := m.Replace; r != nil {
			if strings.HasPrefix(r.Path, "/") || strings.HasPrefix(r.Path, ".") {
				return r.Path
			}
			m = r
		}
		cache := os.Getenv("GOMODCACHE")
		if cache == "" {
			if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
				cache = strings.TrimSpace(string(out))
			}
		}
		if cache == "" {
			return ""
		}
		return filepath.Join(cache, escapePath(m.Path)+"@"+m.Version)
	}
	return ""
}

func loadEnums() {
	enumConst = map[string][]string{}
	root := sdkDir()
	if root == "" {
		return
	}
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := sdkModule
		if rel != "." {
			pkg += "/" + filepath.ToSlash(rel)
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if !ok {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil {
							enumConst[pkg+"."+id.Name] = append(enumConst[pkg+"."+id.Name], s)
						}
					}
				}
			}
		}
		return nil
	})
}

// escapePath is the module cache's spelling of a module path (each upper-case letter becomes
// "!" and its lower case); written here rather than adding golang.org/x/mod for one rule.
func escapePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
