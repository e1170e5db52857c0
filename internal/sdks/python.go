package sdks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/registry"
)

// The Python driver: a virtual environment in the cache directory holding PyPI
// github-copilot-sdk at the exact version asked for (or a local SDK folder), and
// drivers/python/driver.py run with that environment's interpreter.
func init() {
	register(Recipe{
		Probe:        probePython,
		Generated:    pythonGenerated,
		Name:         "python",
		Order:        3,
		ColdPrepare:  74 * time.Second, // a venv and `pip install` from an empty pip cache beside the others, December 2026
		MonorepoDir:  "python",
		SourceDir:    pythonLocalSource,
		LocalBase:    &LocalBase{},
		Version:      pypiSyntax,
		BuildOutputs: []string{".venv", "__pycache__"},
		Pinned:       pinnedIn("requirements.txt", `(?m)^github-copilot-sdk==(\S+)`),
		Pristine:     pristinePython,
		Paired:       pythonPaired,
		Versions:     registry.Public.PyPI(pythonDist),
		Toolchain: []Tool{{
			Bin:         "python3",
			VersionArgs: []string{"--version"},
			Hint:        "install Python >= 3.11 with venv and pip (Debian: apt-get install python3 python3-venv python3-pip)",
		}},
		Prepare: preparePython,
	})
}

const (
	pythonDist   = "github-copilot-sdk"
	pythonImport = "copilot" // the import package the distribution installs
)

// pythonImportPackage recognizes a local SDK given as the import package itself (a copy of
// site-packages/copilot) or as a folder holding it without a build file (an unpacked wheel, a
// copy of site-packages), and returns the package folder.
func pythonImportPackage(src string) (string, bool) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", false
	}
	for _, build := range []string{"pyproject.toml", "setup.py"} {
		if _, err := os.Stat(filepath.Join(abs, build)); err == nil {
			return "", false
		}
	}
	if filepath.Base(abs) == pythonImport {
		if _, err := os.Stat(filepath.Join(abs, "__init__.py")); err == nil {
			return abs, true
		}
	}
	if _, err := os.Stat(filepath.Join(abs, pythonImport, "__init__.py")); err == nil {
		return filepath.Join(abs, pythonImport), true
	}
	return "", false
}

func preparePython(ctx context.Context, pc PrepareContext) (Launch, error) {
	if err := os.MkdirAll(pc.CacheDir, 0o755); err != nil {
		return Launch{}, err
	}
	if err := pc.Run(ctx, pc.CacheDir, nil, "python3", "-c",
		"import sys; sys.exit(0 if sys.version_info >= (3, 11) else 'github-copilot-sdk needs Python >= 3.11, python3 is ' + sys.version.split()[0])"); err != nil {
		return Launch{}, err
	}

	venv := filepath.Join(pc.CacheDir, "venv")
	if err := pc.Run(ctx, pc.CacheDir, nil, "python3", "-m", "venv", "--clear", venv); err != nil {
		return Launch{}, err
	}
	python := filepath.Join(venv, "bin", "python")

	// pip keeps its default cache (~/.cache/pip, or PIP_CACHE_DIR), so a re-prepare reuses the
	// downloaded wheels.
	pipEnv := []string{"PIP_DISABLE_PIP_VERSION_CHECK=1"}
	requirement := pythonDist + "==" + pc.Version
	source := "pypi:" + pythonDist + "@" + pc.Version
	overlay, isOverlay := "", false
	if pc.Source != "" {
		if overlay, isOverlay = pythonImportPackage(pc.Source); isOverlay {
			source = "path:" + overlay + " (over " + requirement + ")"
		} else {
			src, err := pythonSourceDir(pc.Source)
			if err != nil {
				return Launch{}, err
			}
			requirement, source = src, "path:"+src
		}
	}
	if err := pc.Run(ctx, pc.CacheDir, pipEnv, python, "-m", "pip", "install", requirement); err != nil {
		return Launch{}, err
	}
	if isOverlay {
		// An installed or unpacked-wheel copy of the package cannot be pip-installed: install the
		// same release for its dependencies and metadata, then put the copy in its place.
		installed, _ := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages", pythonImport))
		if len(installed) != 1 {
			return Launch{}, fmt.Errorf("python: cannot find the installed %s package to replace in %s", pythonImport, venv)
		}
		if err := os.RemoveAll(installed[0]); err != nil {
			return Launch{}, err
		}
		if err := CopyDir(overlay, installed[0]); err != nil {
			return Launch{}, err
		}
	}

	// driver.py and the modules it imports (rpc.py, …) sit next to each other in the cache.
	modules, err := filepath.Glob(filepath.Join(pc.DriverDir, "*.py"))
	if err != nil {
		return Launch{}, err
	}
	for _, m := range modules {
		body, err := os.ReadFile(m)
		if err != nil {
			return Launch{}, err
		}
		if err := os.WriteFile(filepath.Join(pc.CacheDir, filepath.Base(m)), body, 0o644); err != nil {
			return Launch{}, err
		}
	}
	script := filepath.Join(pc.CacheDir, "driver.py")
	return Launch{
		Argv: []string{python, script},
		Dir:  pc.CacheDir,
		Env:  []string{"PYTHONUNBUFFERED=1", "PYTHONIOENCODING=utf-8", "CONFORMANCE_SDK_SOURCE=" + source},
	}, nil
}

// pythonLocalSource is what preparePython takes from --sdk-source: an importable package copy
// (overlaid on the release) or an installable package.
func pythonLocalSource(src string) (string, error) {
	if overlay, ok := pythonImportPackage(src); ok {
		return overlay, nil
	}
	return pythonSourceDir(src)
}

// pythonSourceDir finds the installable Python package in a local SDK: the folder itself when it
// holds a pyproject.toml / setup.py (an unpacked sdist or the python/ folder of a checkout), its
// python/ subfolder (the root of a github/copilot-sdk checkout), or a wheel / sdist file as is.
func pythonSourceDir(src string) (string, error) {
	dir, err := LocalSource(src, "python", func(dir string) (bool, error) {
		for _, marker := range []string{"pyproject.toml", "setup.py"} {
			if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return "", fmt.Errorf("python: %w (want a pyproject.toml or setup.py)", err)
	}
	return dir, nil
}

// pythonProbe imports the installed SDK: "module.attr…" is an attribute (a class's method,
// a dataclass, pydantic or TypedDict field included), "module.callable(keyword)" a parameter of
// the callable's signature. It prints {symbol: bool} as JSON.
const pythonProbe = `
import importlib, inspect, json, sys

def has(sym):
    kw = None
    if sym.endswith(")"):
        sym, kw = sym[:-1].split("(", 1)
    parts = sym.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj, rest = importlib.import_module(".".join(parts[:i])), parts[i:]
            break
        except ImportError:
            continue
    else:
        return False
    for j, name in enumerate(rest):
        if hasattr(obj, name):
            obj = getattr(obj, name)
            continue
        if j == len(rest) - 1 and kw is None:
            fields = set(getattr(obj, "__dataclass_fields__", {})) | set(getattr(obj, "model_fields", {}) or {})
            for k in getattr(obj, "__mro__", (obj,)):
                fields |= set(getattr(k, "__annotations__", {}))
            return name in fields
        return False
    if kw is None:
        return True
    try:
        return kw in inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return False

print(json.dumps({s: has(s) for s in sys.argv[1:]}))
`

func probePython(ctx context.Context, prep *Prepared, symbols []string) (map[string]bool, error) {
	python := filepath.Join(prep.CacheDir, "venv", "bin", "python")
	stdout, stderr, err := probeCommand(ctx, prep.CacheDir, nil, append([]string{python, "-c", pythonProbe}, symbols...)...)
	if err != nil {
		return nil, fmt.Errorf("python probe: %v: %s", err, bytes.TrimSpace(stderr))
	}
	out := map[string]bool{}
	if err := json.Unmarshal(stdout, &out); err != nil {
		return nil, fmt.Errorf("python probe printed %q: %w", stdout, err)
	}
	return out, nil
}
