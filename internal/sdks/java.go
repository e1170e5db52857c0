package sdks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
	"github.com/copilot-sdk-conformance/conformance/internal/registry"
)

// The Java driver: drivers/java, a Maven project built against
// Maven Central com.github:copilot-sdk-java at an exact version (the property
// copilot.sdk.version in drivers/java/pom.xml holds the pinned default) into one runnable jar
// (maven-shade-plugin), started with `java -jar`.
//
// The Java SDK changed its packages between its 0.x releases (com.github.copilot.sdk.*, the
// line pinned by default, the newest reachable when pinned) and the 1.x line of github/copilot-sdk (com.github.copilot.*), so
// the driver holds one small adapter per API generation (drivers/java/src/v0, src/v1) beside the
// calls both make alike (src/shared, written with the generation's packages at build time); the
// recipe picks the adapter from the SDK version (major 0 -> v0, otherwise v1).
//
// Maven keeps its usual local repository (~/.m2), so a re-prepare reuses every download.
// A local SDK (pc.Source, the java/ folder of a github/copilot-sdk checkout) is installed with
// `mvn install` into a separate local repository under pc.CacheDir, so that a locally built
// SNAPSHOT never lands in ~/.m2 as if it were a release of the registry; that install reads
// ~/.m2 as a file: repository first, so it does not download again what ~/.m2 already holds. The
// driver build then reads the SDK from that folder through the pom's sdk-from-source profile
// (-Dcopilot.sdk.repo=file:...).
func init() {
	register(Recipe{
		Probe:        probeJava,
		Generated:    javaGenerated,
		Name:         "java",
		Order:        5,
		ColdPrepare:  90 * time.Second, // `mvn package` from an empty ~/.m2 beside the other SDKs' preparations, December 2026
		MonorepoDir:  "java",
		SourceDir:    javaSourceDir,
		LocalBase:    &LocalBase{RuntimeBase: RuntimeSelf},
		Version:      mavenSyntax,
		Versions:     registry.Public.Maven(javaGroup, javaArtifact),
		BuildOutputs: []string{"target"},
		Revision:     1, // 1: the JVM flags (javaFlags)
		Newer: "the pin is the newest version reachable from the machine it was chosen on; Maven Central " +
			"itself publishes a 1.x line of com.github:copilot-sdk-java. With full registry access, a newer Java " +
			"SDK may exist: run it with --sdk-version java=<1.x version> (doctor does not query the registry).",
		Pinned: pinnedIn("pom.xml", `<copilot\.sdk\.version>([^<]+)</copilot\.sdk\.version>`),
		Toolchain: []Tool{
			{
				Bin:         "java",
				VersionArgs: []string{"-version"},
				Hint:        "install a JDK >= 17 (Debian: apt-get install openjdk-17-jdk-headless)",
			},
			{
				Bin:         "mvn",
				VersionArgs: []string{"-v"},
				Hint:        "install Apache Maven >= 3.8 (Debian: apt-get install maven)",
			},
		},
		Prepare: prepareJava,
	})
}

const (
	javaGroup    = "com.github"
	javaArtifact = "copilot-sdk-java"
	javaJar      = "copilot-conformance-driver.jar"
)

func prepareJava(ctx context.Context, pc PrepareContext) (Launch, error) {
	build := filepath.Join(pc.CacheDir, "driver")
	if err := os.RemoveAll(build); err != nil {
		return Launch{}, err
	}
	if err := CopyDir(pc.DriverDir, build, "target", "README.md"); err != nil {
		return Launch{}, err
	}

	version := pc.Version
	source := "maven:" + javaGroup + ":" + javaArtifact + ":" + version
	var extra []string
	if pc.Source != "" {
		repo, v, err := installJavaSource(ctx, pc)
		if err != nil {
			return Launch{}, err
		}
		version = v
		source = "source:" + pc.Source
		extra = append(extra, "-Dcopilot.sdk.repo="+(&url.URL{Scheme: "file", Path: repo}).String())
		// The driver builds against the SDK's own local repository too: through ~/.m2, two
		// checkouts of the same -SNAPSHOT version collided (the driver of #2129's merge commit
		// was built against its parent's SDK, cached in ~/.m2 by the run before).
		extra = append(extra, "-Dmaven.repo.local="+repo)
		if settings, err := javaReuseSettings(pc.CacheDir); err == nil && settings != "" {
			extra = append(extra, "-s", settings)
		}
	}
	if version == "" {
		return Launch{}, fmt.Errorf("java: no SDK version given")
	}
	api := javaAPI(version)
	fmt.Fprintf(pc.Log, "java: %s:%s %s (adapter src/%s)\n", javaGroup, javaArtifact, version, api)

	argv := []string{"mvn", "-q", "-B", "package",
		"-Dcopilot.sdk.version=" + version,
		"-Dcopilot.sdk.api=" + api,
		"-Dcopilot.sdk.source=" + source,
	}
	argv = append(argv, extra...)
	if err := pc.Run(ctx, build, mavenOpts(), argv...); err != nil {
		return Launch{}, err
	}
	jar := filepath.Join(build, "target", javaJar)
	if _, err := os.Stat(jar); err != nil {
		return Launch{}, fmt.Errorf("java: the build made no %s: %w", jar, err)
	}
	return Launch{Argv: append(append([]string{"java"}, javaFlags...), "-jar", jar), Dir: pc.CacheDir}, nil
}

// javaFlags start the driver's JVM for a short life of many small calls: the client compiler
// alone (C2's compilations of a run's hot paths cost more CPU than they save in a run this
// short: measured 5.3 -> 3.2 s of driver CPU for the 104 Java scenarios) and the serial
// collector (no GC threads to compete with the other SDKs' drivers on a machine of few cores).
// docker/java.Dockerfile's ENTRYPOINT starts it the same way.
var javaFlags = []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"}

// mavenOpts runs Maven's own JVM with javaFlags too, after the user's MAVEN_OPTS: a build is as
// short a life. `conformance prepare --sdk java` took 12.7 s of CPU (6.8 s) without them and
// 6.6 s (4.8 s) with them; a cold run's preparations share two cores, so its CPU is its time.
func mavenOpts() []string {
	return []string{"MAVEN_OPTS=" + strings.TrimSpace(os.Getenv("MAVEN_OPTS")+" "+strings.Join(javaFlags, " "))}
}

// javaAPI names the driver adapter for an SDK version: v0 for the 0.x releases
// (com.github.copilot.sdk.*), v1 for everything after (com.github.copilot.*).
func javaAPI(version string) string {
	if strings.HasPrefix(version, "0.") {
		return "v0"
	}
	return "v1"
}

// javaSourceDir finds the SDK's Maven project in a local folder: the java/ folder itself, or a
// checkout root holding it.
func javaSourceDir(src string) (string, error) {
	for _, dir := range []string{src, filepath.Join(src, "java")} {
		if _, err := os.Stat(filepath.Join(dir, "pom.xml")); err == nil {
			return filepath.Abs(dir)
		}
	}
	return "", fmt.Errorf("java: %s has no pom.xml (give the java/ folder of a github/copilot-sdk checkout)", src)
}

// installJavaSource builds the SDK in pc.Source and installs it into a local repository under
// pc.CacheDir. It returns that repository and the SDK version the source declares.
func installJavaSource(ctx context.Context, pc PrepareContext) (repo, version string, err error) {
	src, err := javaSourceDir(pc.Source)
	if err != nil {
		return "", "", err
	}
	root, err := readPom(filepath.Join(src, "pom.xml"))
	if err != nil {
		return "", "", err
	}
	// Since 1.0.11 java/ is a reactor (parent + sdk/ + copilot-native/); before, java/pom.xml was
	// the SDK itself.
	var modules []string
	sdkPom := root
	if root.ArtifactID != javaArtifact {
		sdkPom, err = readPom(filepath.Join(src, "sdk", "pom.xml"))
		if err != nil || sdkPom.ArtifactID != javaArtifact {
			return "", "", fmt.Errorf("java: neither %s/pom.xml nor %s/sdk/pom.xml is %s:%s", src, src, javaGroup, javaArtifact)
		}
		modules = []string{"-pl", "sdk", "-am"} // not copilot-native, which downloads a native runtime with npm
	}
	version = sdkPom.Version
	if version == "" {
		version = sdkPom.Parent.Version
	}
	if version == "" || strings.Contains(version, "${") {
		return "", "", fmt.Errorf("java: cannot read the SDK version from %s (got %q)", src, version)
	}

	repo = filepath.Join(pc.CacheDir, "sdk-repository")
	argv := []string{"mvn", "-q", "-B", "install", "-Dmaven.repo.local=" + repo,
		// Only the jar is wanted: no tests, no test harness (npm), no linters or coverage.
		"-DskipTests", "-Dmaven.test.skip=true", "-Dskip.test.harness=true", "-Dskip.cli.install=true",
		"-Dcheckstyle.skip=true", "-Dspotless.check.skip=true", "-Dspotless.apply.skip=true",
		"-Dspotbugs.skip=true", "-Djacoco.skip=true", "-Dgpg.skip=true",
	}
	if settings, err := javaReuseSettings(pc.CacheDir); err != nil {
		fmt.Fprintf(pc.Log, "java: %v (the SDK build downloads its plugins again)\n", err)
	} else if settings != "" {
		argv = append(argv, "-s", settings)
	}
	argv = append(argv, modules...)

	var env []string
	// 1.x sources build a Multi-Release jar and enforce JDK 25+ for it (the jar itself targets 17).
	if need := javaRequiredJDK(src); need > 0 && javaMajor("") < need {
		if home := findJDK(need); home != "" {
			fmt.Fprintf(pc.Log, "java: building the SDK with the JDK in %s (the source requires %d+)\n", home, need)
			env = append(env, "JAVA_HOME="+home)
		} else {
			fmt.Fprintf(pc.Log, "java: the SDK source requires JDK %d+ and none was found (set JAVA_HOME_%d or install one under /usr/lib/jvm); building with the default JDK and its enforcer rules off\n", need, need)
			argv = append(argv, "-Denforcer.skip=true")
		}
	}
	if err := pc.Run(ctx, src, env, argv...); err != nil {
		return "", "", err
	}
	if _, err := os.Stat(filepath.Join(repo, "com", "github", javaArtifact, version)); err != nil {
		return "", "", fmt.Errorf("java: mvn install put no %s %s into %s", javaArtifact, version, repo)
	}
	return repo, version, nil
}

type pomFile struct {
	ArtifactID string `xml:"artifactId"`
	Version    string `xml:"version"`
	Parent     struct {
		Version string `xml:"version"`
	} `xml:"parent"`
}

func readPom(path string) (pomFile, error) {
	var p pomFile
	b, err := os.ReadFile(path)
	if err != nil {
		return p, err
	}
	if err := xml.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("java: %s: %w", path, err)
	}
	return p, nil
}

// javaReuseSettings writes a Maven settings file that puts ~/.m2/repository before Maven Central
// as a read-only file: repository, so the isolated SDK install reuses what is already downloaded.
// It returns "" when the user has a settings.xml of their own (a mirror or proxy that -s would
// drop).
func javaReuseSettings(cacheDir string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(home, ".m2", "settings.xml")); err == nil {
		return "", nil
	}
	userRepo := filepath.Join(home, ".m2", "repository")
	if st, err := os.Stat(userRepo); err != nil || !st.IsDir() {
		return "", nil
	}
	u := (&url.URL{Scheme: "file", Path: userRepo}).String()
	repo := func(tag string) string {
		return fmt.Sprintf(`<%[1]s><id>user-m2</id><url>%[2]s</url><releases><enabled>true</enabled></releases><snapshots><enabled>false</enabled></snapshots></%[1]s>`, tag, u)
	}
	body := `<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by the conformance harness: reuse ~/.m2/repository (read only) for the SDK source build. -->
<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">
  <profiles><profile><id>reuse-user-m2</id>
    <repositories>` + repo("repository") + `</repositories>
    <pluginRepositories>` + repo("pluginRepository") + `</pluginRepositories>
  </profile></profiles>
  <activeProfiles><activeProfile>reuse-user-m2</activeProfile></activeProfiles>
</settings>
`
	path := filepath.Join(cacheDir, "sdk-settings.xml")
	return path, os.WriteFile(path, []byte(body), 0o644)
}

// javaRequiredJDK is the JDK feature version the SDK source's build enforces (a
// requireJavaVersion rule such as [25,)), or 0.
func javaRequiredJDK(src string) int {
	need := 0
	for _, pom := range []string{filepath.Join(src, "pom.xml"), filepath.Join(src, "sdk", "pom.xml")} {
		b, err := os.ReadFile(pom)
		if err != nil {
			continue
		}
		text := string(b)
		for {
			i := strings.Index(text, "<requireJavaVersion>")
			if i < 0 {
				break
			}
			text = text[i+len("<requireJavaVersion>"):]
			j := strings.Index(text, "<version>")
			k := strings.Index(text, "</requireJavaVersion>")
			if j < 0 || (k >= 0 && j > k) {
				continue
			}
			v := strings.TrimLeft(text[j+len("<version>"):], "[( ")
			end := strings.IndexAny(v, ",.)]< ")
			if end < 0 {
				continue
			}
			if n, err := strconv.Atoi(v[:end]); err == nil && n > need {
				need = n
			}
		}
	}
	return need
}

// javaMajor is the feature version of the JDK in home ("" for the java on PATH), or 0.
func javaMajor(home string) int {
	if home != "" {
		f, err := os.Open(filepath.Join(home, "release"))
		if err != nil {
			return 0
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "JAVA_VERSION="); ok {
				return parseJavaVersion(strings.Trim(v, `"`))
			}
		}
		return 0
	}
	out, err := procgroup.CombinedOutput(procgroup.Command(context.Background(), "java", "-version"))
	if err != nil {
		return 0
	}
	// openjdk version "17.0.15" 2025-04-15
	line := strings.SplitN(string(out), "\n", 2)[0]
	if i := strings.Index(line, `"`); i >= 0 {
		if j := strings.Index(line[i+1:], `"`); j >= 0 {
			return parseJavaVersion(line[i+1 : i+1+j])
		}
	}
	return 0
}

func parseJavaVersion(v string) int {
	v = strings.TrimPrefix(v, "1.") // 1.8 -> 8
	end := strings.IndexAny(v, ".-+")
	if end >= 0 {
		v = v[:end]
	}
	n, _ := strconv.Atoi(v)
	return n
}

// findJDK returns a JDK home with feature version >= need: $JAVA_HOME_<need>, or the newest one
// under /usr/lib/jvm.
func findJDK(need int) string {
	if home := os.Getenv(fmt.Sprintf("JAVA_HOME_%d", need)); home != "" && javaMajor(home) >= need {
		return home
	}
	dirs, _ := filepath.Glob("/usr/lib/jvm/*")
	type jdk struct {
		home  string
		major int
	}
	var found []jdk
	for _, d := range dirs {
		if st, err := os.Lstat(d); err != nil || !st.IsDir() {
			continue // skip the Debian alias symlinks
		}
		if _, err := os.Stat(filepath.Join(d, "bin", "javac")); err != nil {
			continue
		}
		if m := javaMajor(d); m >= need {
			found = append(found, jdk{d, m})
		}
	}
	if len(found) == 0 {
		return ""
	}
	sort.Slice(found, func(i, j int) bool { return found[i].major > found[j].major })
	return found[0].home
}

// probeJava asks javap about the driver's jar, which shades the SDK's classes in:
// "package.Class#member" is a public method, field or record component of Class; "package.Class"
// the class itself.
func probeJava(ctx context.Context, prep *Prepared, symbols []string) (map[string]bool, error) {
	jar := filepath.Join(prep.CacheDir, "driver", "target", javaJar)
	out := map[string]bool{}
	for _, sym := range symbols {
		class, member := splitMember(sym, "#")
		stdout, stderr, err := probeCommand(ctx, prep.CacheDir, nil, "javap", "-public", "-cp", jar, class)
		switch {
		case err != nil && bytes.Contains(stdout, []byte("class not found")) || bytes.Contains(stderr, []byte("class not found")):
			out[sym] = false
		case err != nil:
			return nil, fmt.Errorf("javap %s: %v: %s", class, err, bytes.TrimSpace(stderr))
		case member == "":
			out[sym] = true
		default:
			out[sym] = regexp.MustCompile(`[\s.]` + regexp.QuoteMeta(member) + `(?:\(|;)`).Match(stdout)
		}
	}
	return out, nil
}
