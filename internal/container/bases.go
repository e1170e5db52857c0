package container

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
)

// DebianImage is the local Debian 12 root image every local base builds on.
const DebianImage = "conformance-local/debian:bookworm"

// debianRelease is what debootstrap installs; part of the Debian image's key.
const debianRelease = "bookworm"

// LocalBaseImage is the local stand-in for the official image docker/<lang>.Dockerfile defaults to.
func LocalBaseImage(lang string) string { return "conformance-local/" + lang + ":bookworm" }

// LocalLanguages are the languages that have local base images (their recipes' LocalBase).
func LocalLanguages() []string { return sdks.LocalBases() }

// LocalBuildArgs returns the build arguments that point docker/<lang>.Dockerfile at the local
// bases (BASE, and RUNTIME_BASE as the recipe says), or false when the language has none.
func LocalBuildArgs(lang string) (map[string]string, bool) {
	d, ok := sdks.Lookup(lang)
	if !ok || d.LocalBase == nil {
		return nil, false
	}
	out := map[string]string{"BASE": LocalBaseImage(lang)}
	switch d.LocalBase.RuntimeBase {
	case sdks.RuntimeDebian:
		out["RUNTIME_BASE"] = DebianImage
	case sdks.RuntimeSelf:
		out["RUNTIME_BASE"] = LocalBaseImage(lang)
	}
	return out, true
}

// Bases builds the local base images: a Debian 12 root from debootstrap, and per language an image
// from docker/local/<lang>.Dockerfile on top of it. Each is skipped when an image with the same
// content key exists.
type Bases struct {
	RepoRoot string    // holds docker/local/
	WorkDir  string    // keeps the debootstrapped root file system between runs
	Mirror   string    // Debian mirror; "" for deb.debian.org
	Log      io.Writer // progress and build output
}

// Ensure builds the Debian image and the bases of langs (LocalLanguages when empty).
func (b *Bases) Ensure(ctx context.Context, pool *dockertest.Pool, langs []string) error {
	if len(langs) == 0 {
		langs = LocalLanguages()
	}
	if err := b.debian(ctx, pool); err != nil {
		return err
	}
	debian, err := pool.Client.InspectImage(DebianImage)
	if err != nil {
		return err
	}
	for _, lang := range langs {
		d, ok := sdks.Lookup(lang)
		if !ok || d.LocalBase == nil {
			return fmt.Errorf("no local base for %q (have: %s)", lang, strings.Join(LocalLanguages(), ", "))
		}
		build := Build{
			Tag:        LocalBaseImage(lang),
			Dockerfile: filepath.Join(b.RepoRoot, "docker", "local", lang+".Dockerfile"),
			Args:       map[string]string{"DEBIAN": DebianImage},
			Kind:       "local-base",
			Log:        b.Log,
		}
		extra := []string{"debian " + debian.ID}
		if d.LocalBase.HostFiles != nil {
			files, key, err := d.LocalBase.HostFiles()
			if err != nil {
				return err
			}
			build.Extra = files
			extra = append(extra, key)
		}
		if build.Key, err = HashFiles([]string{build.Dockerfile}, extra...); err != nil {
			return err
		}
		start := time.Now()
		built, err := Ensure(ctx, pool, build)
		if err != nil {
			return err
		}
		if built {
			fmt.Fprintf(b.Log, "local base %s built in %s\n", build.Tag, time.Since(start).Round(time.Second))
		} else {
			fmt.Fprintf(b.Log, "local base %s is up to date\n", build.Tag)
		}
	}
	return nil
}

// debian makes DebianImage from a debootstrapped root (kept in WorkDir, so a lost image is
// re-imported without downloading again).
func (b *Bases) debian(ctx context.Context, pool *dockertest.Pool) error {
	key := "debootstrap --variant=minbase " + debianRelease + " without apt caches"
	text := "FROM conformance-local/debian-rootfs:" + debianRelease + "\n" + caEnv
	var extra map[string]string
	// A machine whose egress re-signs TLS trusts its own CAs (Debian: /usr/local/share/ca-certificates);
	// the local bases trust them too, or no registry answers inside a container. Each base's
	// ca-certificates install adds them to the system bundle.
	if entries, err := os.ReadDir(localCADir); err == nil && len(entries) > 0 {
		caKey, err := HashFiles([]string{localCADir})
		if err != nil {
			return err
		}
		key += " ca " + caKey[:12]
		text += "COPY local-ca/ /usr/local/share/ca-certificates/\n"
		extra = map[string]string{"local-ca": localCADir}
	}
	if img, err := pool.Client.InspectImage(DebianImage); err == nil && img.Config != nil && img.Config.Labels[LabelKey] == key {
		fmt.Fprintf(b.Log, "local base %s is up to date\n", DebianImage)
		return nil
	}
	start := time.Now()
	rootfs := filepath.Join(b.WorkDir, "rootfs", debianRelease+"-minbase")
	if _, err := os.Stat(filepath.Join(rootfs, "etc", "debian_version")); err != nil {
		if _, err := exec.LookPath("debootstrap"); err != nil {
			return fmt.Errorf("debootstrap not found: install it (apt-get install debootstrap), or run docker/engine.sh start as root, which does")
		}
		tmp := rootfs + ".tmp"
		if err := os.RemoveAll(tmp); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(rootfs), 0o755); err != nil {
			return err
		}
		mirror := b.Mirror
		if mirror == "" {
			mirror = "http://deb.debian.org/debian"
		}
		fmt.Fprintf(b.Log, "$ debootstrap --variant=minbase %s %s %s\n", debianRelease, tmp, mirror)
		cmd := procgroup.Command(ctx, "debootstrap", "--variant=minbase", debianRelease, tmp, mirror)
		tail := &tailWriter{max: 8 << 10}
		cmd.Stdout, cmd.Stderr = tail, tail
		if err := procgroup.Run(cmd); err != nil {
			return fmt.Errorf("debootstrap %s: %w\n%s", debianRelease, err, tail.String())
		}
		if err := os.Rename(tmp, rootfs); err != nil {
			return err
		}
	}
	// `tar | docker import`: tar keeps owners, modes and links of the root file system as they are.
	// Without apt's package cache and lists (80 MB): every base runs apt-get update first anyway.
	raw := "conformance-local/debian-rootfs:" + debianRelease
	tarCmd := exec.CommandContext(ctx, "tar", "-C", rootfs, "--numeric-owner",
		"--exclude=./var/cache/apt/*", "--exclude=./var/lib/apt/lists/*", "-c", ".")
	stdout, err := tarCmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := tarCmd.Start(); err != nil {
		return err
	}
	importErr := pool.Client.ImportImage(dc.ImportImageOptions{
		Repository: strings.Split(raw, ":")[0], Tag: debianRelease, Source: "-",
		InputStream: stdout, OutputStream: io.Discard, Context: ctx,
	})
	if err := tarCmd.Wait(); err != nil && importErr == nil {
		importErr = fmt.Errorf("tar %s: %w", rootfs, err)
	}
	if importErr != nil {
		return fmt.Errorf("import %s: %w", rootfs, importErr)
	}
	// Labelled in a build of its own: an import takes no labels.
	if _, err := Ensure(ctx, pool, Build{Tag: DebianImage, Text: text, Extra: extra, Kind: "local-base", Key: key, Log: b.Log}); err != nil {
		return err
	}
	_ = pool.Client.RemoveImage(raw) // untags it; the layers stay under DebianImage
	fmt.Fprintf(b.Log, "local base %s built in %s\n", DebianImage, time.Since(start).Round(time.Second))
	return nil
}

// localCADir holds the CA certificates a Debian host adds to its system bundle.
const localCADir = "/usr/local/share/ca-certificates"

// caEnv points every TLS stack in the local images at the system bundle (which includes the local
// CAs once ca-certificates is installed): pip and Node carry bundles of their own otherwise.
const caEnv = "ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt PIP_CERT=/etc/ssl/certs/ca-certificates.crt " +
	"REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt\n"
