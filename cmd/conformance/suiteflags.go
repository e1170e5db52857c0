package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/spf13/cobra"
)

// suiteFlags are the flags every command that runs the suite shares (run, bench, bisect,
// fidelity, history, selftest), bound once to one harness.Config: which cases (the feature
// arguments, --tags, --scenario), on which SDKs (--sdk, --sdk-version, --sdk-source), where
// (--runner, --local-bases, --runtime, --runtime-version), judged how (--expected-failures,
// --validate-protocol), how many at once and how long (--jobs, --timeout) and where the files go
// (--cache-dir, --report-dir). A command reads the configuration with config and changes only
// what it decides itself (a version of its own, a report folder per run).
type suiteFlags struct {
	cmd        *cobra.Command
	cfg        harness.Config // the flags bound straight to a field of the configuration
	sdkList    string         // --sdk, comma-separated
	versions   []string       // --sdk-version LANG=VERSION[,VERSION…]
	sources    []string       // --sdk-source LANG=PATH | PATH
	rtVersions []string       // --runtime-version
	opts       suiteOptions
}

// suiteOptions are where a command's shared flags differ from run's.
type suiteOptions struct {
	reportDir, reportDirHelp string // the report folder's default and what the command writes into it
	jobsHelp                 string // --jobs's meaning, when not run's
	// jobsChosen: --jobs defaults to 0, and the command chooses (history divides run's
	// default among the versions it runs at once); else to harness.DefaultJobs.
	jobsChosen bool
	// runtimeMatrix: several --runtime-version values are allowed (run's SDK × runtime matrix).
	runtimeMatrix bool
	// bothRuntimes: the command runs the stand-in and the real runtime itself (fidelity), so
	// --runtime is its own and --runtime-version names the real one.
	bothRuntimes bool
}

// bindSuite adds the shared flags to cmd.
func bindSuite(cmd *cobra.Command, o suiteOptions) *suiteFlags {
	s := &suiteFlags{cmd: cmd, opts: o}
	jobs := harness.DefaultJobs()
	if o.jobsChosen {
		jobs = 0
	}
	if o.jobsHelp == "" {
		o.jobsHelp = "scenarios of one SDK run at once, side by side on a concurrent driver or each on its own (1: one after another)"
	}
	f := cmd.Flags()
	f.StringVar(&s.sdkList, "sdk", "", "comma-separated SDKs ("+strings.Join(sdks.Names(), ",")+"); default every SDK whose toolchain is present")
	f.StringArrayVar(&s.versions, "sdk-version", nil, "run published versions: LANG=VERSION[,VERSION…] (repeatable); several versions of one SDK run as targets of their own")
	f.StringArrayVar(&s.sources, "sdk-source", nil, "run a local SDK folder: LANG=PATH (repeatable), or PATH of a github/copilot-sdk checkout (each --sdk's folder in it)")
	f.StringVar(&s.cfg.Tags, "tags", "", "godog tag expression, e.g. '@requires.tool.isTerminal && ~@slow' ('~@sweep': the features without the generated sweeps)")
	f.StringVar(&s.cfg.Scenario, "scenario", "", "run only the scenario with exactly this name")
	f.StringVar(&s.cfg.ReportDir, "report-dir", o.reportDir, o.reportDirHelp)
	f.StringVar(&s.cfg.CacheRoot, "cache-dir", "", "where prepared drivers are cached (default $CONFORMANCE_CACHE or the user cache folder)")
	f.StringVar(&s.cfg.Manifest, "expected-failures", "", "known-divergence manifest (default fixtures/expected-failures.yaml)")
	f.StringVar(&s.cfg.Runner, "runner", harness.RunnerLocal, "where the drivers run: local (this machine's toolchains) or docker (a container per SDK, docker/README.md)")
	f.BoolVar(&s.cfg.LocalBases, "local-bases", false, "with --runner docker: build the driver images on the local base images (conformance images --local-bases), for machines without an image registry")
	f.StringVar(&s.cfg.Runtime, "runtime", harness.RuntimeStandIn, "the runtime the SDKs talk to: stand-in (the recording runtime, default) or real (the real Copilot runtime behind a recording proxy, with a scripted model)")
	f.StringSliceVar(&s.rtVersions, "runtime-version", nil, "with --runtime real: npm @github/copilot versions to run (default: the runtime the pinned Node SDK ships); several make an SDK × runtime compatibility matrix (run)")
	f.DurationVar(&s.cfg.CommandTimeout, "timeout", 60*time.Second, "longest a driver may take to answer one command")
	f.IntVar(&s.cfg.Jobs, "jobs", jobs, o.jobsHelp)
	f.BoolVarP(&s.cfg.ValidateProtocol, "validate-protocol", "V", false, "check every driver line against drivers/protocol.schema.json")
	return s
}

// based is cfg with what every run has besides its flags: the checkout, the steps, how this
// program is run again, the command line.
func based(cfg harness.Config, root string) harness.Config {
	cfg.Steps, cfg.Vocabulary, cfg.RepoRoot, cfg.Self = steps.Initializer, steps.Vocabulary(), root, selfArgv()
	cfg.Command = "conformance " + strings.Join(os.Args[1:], " ")
	return cfg
}

// config is the run's configuration: the flags, checked, and the feature files or folders in args.
func (s *suiteFlags) config(args []string) (harness.Config, error) {
	root, err := repoRoot(s.cmd)
	if err != nil {
		return harness.Config{}, err
	}
	cfg := based(s.cfg, root)
	if cfg.Runner != harness.RunnerLocal && cfg.Runner != harness.RunnerDocker {
		return cfg, usage("--runner %q: want local or docker", cfg.Runner)
	}
	if cfg.LocalBases && cfg.Runner != harness.RunnerDocker {
		return cfg, usage("--local-bases is for --runner docker")
	}
	switch {
	case cfg.Runtime != harness.RuntimeStandIn && cfg.Runtime != harness.RuntimeReal:
		return cfg, usage("--runtime %q: want stand-in or real", cfg.Runtime)
	case s.opts.bothRuntimes && s.cmd.Flags().Changed("runtime"):
		return cfg, usage("%s runs both runtimes: --runtime is not for it (--runtime-version names the real one)", s.cmd.Name())
	case len(s.rtVersions) > 0 && cfg.Runtime != harness.RuntimeReal && !s.opts.bothRuntimes:
		return cfg, usage("--runtime-version is for --runtime real")
	case len(s.rtVersions) > 1 && !s.opts.runtimeMatrix:
		return cfg, usage("--runtime-version: %s runs one runtime version (run makes a matrix of several)", s.cmd.Name())
	case len(s.rtVersions) == 1:
		cfg.RuntimeVersion = s.rtVersions[0]
	}
	if s.sdkList != "" {
		for _, n := range strings.Split(s.sdkList, ",") {
			cfg.SDKs = append(cfg.SDKs, strings.TrimSpace(n))
		}
	}
	if cfg.Versions, err = versionLists(s.versions); err != nil {
		return cfg, err
	}
	if cfg.Sources, err = sourcePairs(s.sources, cfg.SDKs); err != nil {
		return cfg, err
	}
	for _, a := range args {
		p, _ := filepath.Abs(a)
		cfg.Paths = append(cfg.Paths, p)
	}
	if cfg.ReportDir != "" {
		if cfg.ReportDir, err = filepath.Abs(cfg.ReportDir); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// runtimeVersions are the --runtime-version values (run's matrix).
func (s *suiteFlags) runtimeVersions() []string { return s.rtVersions }

// oneSDK is the one SDK of a command that follows one SDK through its versions (bisect,
// history): --sdk names it, and --sdk-version and --sdk-source may not (the command chooses
// its versions).
func oneSDK(cmd string, cfg harness.Config) (string, error) {
	if len(cfg.SDKs) != 1 {
		return "", usage("%s needs --sdk with one SDK (%s)", cmd, strings.Join(sdks.Names(), ", "))
	}
	sdk := cfg.SDKs[0]
	if _, ok := sdks.Lookup(sdk); !ok {
		return "", usage("--sdk %q: known SDKs are %s", sdk, strings.Join(sdks.Names(), ", "))
	}
	if _, ok := cfg.Versions[sdk]; ok {
		return "", usage("--sdk-version %s: %s chooses %s's versions itself", sdk, cmd, sdk)
	}
	if _, ok := cfg.Sources[sdk]; ok {
		return "", usage("--sdk-source %s: %s runs %s's published versions", sdk, cmd, sdk)
	}
	return sdk, nil
}

// usage is a usage error (exit status 2).
func usage(format string, a ...any) error { return &exitError{2, fmt.Errorf(format, a...)} }
