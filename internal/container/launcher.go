package container

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// Bind mounts a host path into the driver's container.
type Bind struct {
	Host, Container string
	ReadOnly        bool
}

func (b Bind) String() string {
	s := b.Host + ":" + b.Container
	if b.ReadOnly {
		s += ":ro"
	}
	return s
}

// StdioBinds makes the harness's stdio runtime reachable in the container at the paths the harness
// hands the SDK (`connect {cliPath}`): the wrapper script lives in tmpDir and execs self (the
// harness's own executable) with a transcript file in tmpDir. So tmpDir is mounted read-write at
// the same path, and runtime (a static build of the conformance binary, CGO_ENABLED=0, which runs
// in any image) read-only at self's path. runtime may be self when self is static.
func StdioBinds(self, runtime, tmpDir string) []Bind {
	return []Bind{{Host: tmpDir, Container: tmpDir}, {Host: runtime, Container: self, ReadOnly: true}}
}

// Launcher starts a driver in a container of Image; it implements driver.Launcher.
//
// The container uses the host's network, so the driver reaches the recording runtime on
// 127.0.0.1:<port> exactly as a local driver does; stdin and stdout are attached as the protocol's
// pipes. It is removed when it exits (the engine's auto-remove, so a driver left on its own by a
// killed harness goes too: it exits on EOF on stdin), on Kill, and by Cleanup for its run.
type Launcher struct {
	Pool  *dockertest.Pool
	Image string
	SDK   string
	RunID string // LabelRun of the container; Cleanup(RunID) removes what is left
	Binds []Bind
	Env   []string
	// StderrLog, when set, receives everything the driver writes to stderr.
	StderrLog io.Writer
}

var _ driver.Launcher = (*Launcher)(nil)

// Describe implements driver.Launcher: a command that starts the same driver by hand.
func (l *Launcher) Describe() string {
	parts := []string{"docker run -i --rm --network host"}
	for _, b := range l.Binds {
		parts = append(parts, "-v "+b.String())
	}
	for _, e := range append(driver.InheritedEnv(), l.Env...) {
		parts = append(parts, "-e "+e)
	}
	return strings.Join(append(parts, l.Image), " ")
}

// Labels returns the labels of the driver containers of this launcher.
func (l *Launcher) Labels() map[string]string {
	return map[string]string{LabelProject: "1", LabelRun: l.RunID, LabelKind: "driver", "io.conformance.sdk": l.SDK}
}

// Start implements driver.Launcher.
func (l *Launcher) Start(ctx context.Context) (driver.Process, error) {
	if l.RunID == "" {
		return nil, errors.New("container launcher: no run id (needed to clean up)")
	}
	binds := make([]string, len(l.Binds))
	for i, b := range l.Binds {
		binds[i] = b.String()
	}
	c, err := l.Pool.Client.CreateContainer(dc.CreateContainerOptions{
		Context: ctx,
		Config: &dc.Config{
			Image: l.Image, Env: append(driver.InheritedEnv(), l.Env...), Labels: l.Labels(),
			OpenStdin: true, StdinOnce: true, AttachStdin: true, AttachStdout: true, AttachStderr: true,
		},
		HostConfig: &dc.HostConfig{NetworkMode: "host", Binds: binds, AutoRemove: true},
	})
	if err != nil {
		return nil, fmt.Errorf("create driver container from %s: %w", l.Image, err)
	}
	p := &process{pool: l.Pool, id: c.ID, tail: &driver.Tail{Max: 64 << 10}, done: make(chan struct{})}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p.in, p.out = inW, outR
	var stderr io.Writer = p.tail
	if l.StderrLog != nil {
		stderr = io.MultiWriter(p.tail, l.StderrLog)
	}
	success := make(chan struct{})
	attach, err := l.Pool.Client.AttachToContainerNonBlocking(dc.AttachToContainerOptions{
		Container: c.ID, InputStream: inR, OutputStream: outW, ErrorStream: stderr,
		Stdin: true, Stdout: true, Stderr: true, Stream: true, Success: success,
	})
	if err != nil {
		p.remove()
		return nil, fmt.Errorf("attach to driver container %s: %w", short(c.ID), err)
	}
	<-success
	success <- struct{}{}
	if err := l.Pool.Client.StartContainerWithContext(c.ID, nil, ctx); err != nil {
		_ = attach.Close()
		p.remove()
		return nil, fmt.Errorf("start driver container from %s: %w", l.Image, err)
	}
	go func() {
		code, werr := l.Pool.Client.WaitContainer(c.ID)
		_ = attach.Wait() // the rest of stdout and stderr
		_ = outW.Close()
		_ = inR.Close()
		var nf *dc.NoSuchContainer
		switch {
		case errors.As(werr, &nf):
			// Auto-removed before the wait started: it has exited, with a status we cannot know.
		case werr != nil:
			p.err = fmt.Errorf("wait for driver container %s: %w", short(c.ID), werr)
		case code != 0:
			p.err = fmt.Errorf("driver container %s exited with status %d", short(c.ID), code)
		}
		p.remove()
		close(p.done)
	}()
	return p, nil
}

type process struct {
	pool *dockertest.Pool
	id   string
	in   *io.PipeWriter
	out  *io.PipeReader
	tail *driver.Tail
	done chan struct{}
	err  error
	once sync.Once
}

func (p *process) Stdin() io.WriteCloser { return p.in }
func (p *process) Stdout() io.Reader     { return p.out }
func (p *process) StderrTail() string    { return p.tail.String() }
func (p *process) Wait() error           { <-p.done; return p.err }

// Kill stops the container at once; the waiter then removes it.
func (p *process) Kill() {
	_ = p.pool.Client.KillContainer(dc.KillContainerOptions{ID: p.id})
	p.remove()
}

func (p *process) remove() {
	p.once.Do(func() {
		_ = p.pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: p.id, Force: true, RemoveVolumes: true})
	})
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
