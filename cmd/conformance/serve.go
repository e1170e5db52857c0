package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/spf13/cobra"
)

func serveCmd() *cobra.Command {
	var listen, out string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Start the recording runtime alone and record whatever connects to it",
		Long: `Serve starts the recording runtime on a loopback TCP port, prints its address (and the
COPILOT_CLI_PATH form for SDKs that spawn their runtime over stdio), and writes the transcript
of every connection until interrupted. Point your own application at it to see what your SDK
puts on the wire.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			rec, err := transcript.New(out)
			if err != nil {
				return &exitError{2, err}
			}
			defer rec.Close()
			srv := standin.New(rec, standin.Options{})
			addr, err := srv.Listen(listen)
			if err != nil {
				return &exitError{2, err}
			}
			script, err := stdioScript(out)
			if err != nil {
				return &exitError{2, err}
			}
			if tcp, err := net.ResolveTCPAddr("tcp", addr); err == nil && !standin.Loopback(tcp) {
				fmt.Fprintf(os.Stderr, "warning: listening on %s, not loopback only (--listen %s): any machine that can reach it can connect, and the transcript records what it sends\n", addr, listen)
			}
			fmt.Printf("recording runtime listening on %s\n", addr)
			fmt.Printf("  TCP:   connect your SDK to %s (e.g. RuntimeConnection.forUri(\"%s\"))\n", addr, addr)
			fmt.Printf("  stdio: COPILOT_CLI_PATH=%s (your SDK spawns the runtime; its frames go to %s.stdio.ndjson)\n", script, out)
			fmt.Printf("transcript: %s\n", out)
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
			<-sig
			srv.Close()
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "address to listen on (loopback by default)")
	cmd.Flags().StringVar(&out, "transcript", "conformance-serve.ndjson", "transcript file")
	return cmd
}

// stdioScript writes the COPILOT_CLI_PATH script beside the transcript.
func stdioScript(transcript string) (string, error) {
	abs, err := filepath.Abs(transcript)
	if err != nil {
		return "", err
	}
	script := strings.TrimSuffix(abs, filepath.Ext(abs)) + "-copilot"
	return script, standin.WriteStdioScript(script, selfArgv(), abs+".stdio.ndjson")
}

// runtimeCmd is what an SDK spawns as its CLI: it serves one connection on stdin/stdout. It
// accepts and ignores every flag it does not know, since each SDK passes its own (--headless,
// --stdio, --log-level info, --server, …), and writes only frames to stdout.
func runtimeCmd() *cobra.Command {
	var stdio, preConnect bool
	var out, relay string
	cmd := &cobra.Command{
		Use:                "runtime --stdio [--transcript FILE] [--relay ADDR] [SDK flags…]",
		Short:              "Serve the recording runtime on stdin/stdout (what an SDK spawns as its CLI)",
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				out = os.Getenv("CONFORMANCE_TRANSCRIPT")
			}
			rec, err := transcript.New(out)
			if err != nil {
				return &exitError{2, err}
			}
			defer rec.Close()
			// The SDK's own arguments: the last CONFORMANCE_SDK_ARGC (the script the SDK spawns
			// says how many it passed), else every argument.
			argv := os.Args[1:]
			if n, err := strconv.Atoi(os.Getenv("CONFORMANCE_SDK_ARGC")); err == nil && n >= 0 && n <= len(argv) {
				argv = argv[len(argv)-n:]
			}
			rec.Started(argv)
			var names []string
			for _, kv := range os.Environ() {
				names = append(names, strings.SplitN(kv, "=", 2)[0])
			}
			sort.Strings(names)
			rec.Notef("", "env: %s", strings.Join(names, " "))
			// The token variables are recorded by fingerprint only (their values are also
			// scrubbed from everything recorded), so a feature can check which token arrived.
			if secrets := transcript.AddSecretsFromEnv(os.Environ()); len(secrets) > 0 {
				rec.Notef("", "env secrets: %s", strings.Join(secrets, " "))
			}
			// Every runtime mode serves stdio: an SDK that did not pass --stdio still gets frames.
			_ = stdio
			if relay != "" {
				return relayStdio(rec, relay)
			}
			// Served until stdin ends or the SDK's runtime.shutdown is answered: then the
			// process exits, as the real runtime does, rather than wait for the SDK to kill it.
			done := make(chan struct{})
			var once sync.Once
			end := func() { once.Do(func() { close(done) }) }
			go func() {
				standin.New(rec, standin.Options{OnShutdown: end, PreConnect: preConnect}).ServeConn(os.Stdin, os.Stdout)
				end()
			}()
			<-done
			return nil
		},
	}
	cmd.Flags().BoolVar(&stdio, "stdio", true, "serve JSON-RPC on stdin/stdout")
	cmd.Flags().StringVar(&out, "transcript", "", "transcript file (default $CONFORMANCE_TRANSCRIPT)")
	cmd.Flags().BoolVar(&preConnect, "pre-connect", false, "answer as a runtime that predates the connect handshake (ping's timestamp a number): for an SDK that cannot talk to the current runtime")
	cmd.Flags().StringVar(&relay, "relay", "", "pass stdin and stdout to the runtime listening at this TCP address, unchanged, instead of serving the recording runtime (the real runtime's recording proxy records the frames)")
	return cmd
}

// relayStdio copies stdin to a TCP connection to addr and the connection to stdout until
// either side ends: an SDK that spawns its runtime over stdio reaches the real runtime's
// recording proxy through it.
func relayStdio(rec *transcript.Recorder, addr string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		rec.Notef("", "relaying to %s: %v", addr, err)
		return &exitError{1, err}
	}
	defer c.Close()
	rec.Notef("", "stdin and stdout relayed to the runtime at %s", addr)
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(c, os.Stdin)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(os.Stdout, c)
		done <- struct{}{}
	}()
	<-done
	return nil
}
