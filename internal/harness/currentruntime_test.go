package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePingDriver is an SDK stand-in whose connect pings the runtime and reads the timestamp as
// mode says: "number" refuses a string (as copilot-sdk-java 0.3's PingResponse does), "any"
// takes either, "none" refuses both (an SDK that connects to no runtime).
func fakePingDriver(mode string) {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var c struct {
			ID   int    `json:"id"`
			Cmd  string `json:"cmd"`
			Args struct {
				Address string `json:"address"`
			} `json:"args"`
		}
		_ = json.Unmarshal(sc.Bytes(), &c)
		switch c.Cmd {
		case "hello":
			fmt.Printf(`{"id":%d,"outcome":"ok","result":{"protocolVersion":1,"sdk":"fake","version":"1.0.0","capabilities":{"transport.tcp":true}}}`+"\n", c.ID)
		case "connect":
			if why := pingAndRead(c.Args.Address, mode); why != "" {
				fmt.Printf(`{"id":%d,"outcome":"error","error":{"type":"ParseError","message":%q}}`+"\n", c.ID, why)
				continue
			}
			fmt.Printf(`{"id":%d,"outcome":"ok","result":{}}`+"\n", c.ID)
		default:
			fmt.Printf(`{"id":%d,"outcome":"ok","result":{}}`+"\n", c.ID)
		}
	}
}

func pingAndRead(addr, mode string) string {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err.Error()
	}
	defer conn.Close()
	if err := wire.NewWriter(conn).Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`)); err != nil {
		return err.Error()
	}
	body, err := wire.NewReader(conn).Next()
	if err != nil {
		return err.Error()
	}
	var m struct {
		Result struct {
			Timestamp json.RawMessage `json:"timestamp"`
		} `json:"result"`
	}
	_ = json.Unmarshal(body, &m)
	var n int64
	switch {
	case mode == "none":
		return "no runtime suits this SDK"
	case mode == "number" && json.Unmarshal(m.Result.Timestamp, &n) != nil:
		return fmt.Sprintf("cannot read timestamp %s as a long", m.Result.Timestamp)
	}
	return ""
}

// The stand-in fits each SDK: one that cannot read the current runtime's answers runs against
// the shapes of the older runtime it connects to, and the note says so with the SDK's words and
// the frame it choked on; one that connects, or that connects to neither, runs as usual.
func TestStandInFitsAnSDKThatCannotTalkToTheCurrentRuntime(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	tests := []struct {
		mode     string
		pre      bool
		contains []string
	}{
		{mode: "number", pre: true, contains: []string{"cannot connect to the current runtime", "ParseError: cannot read timestamp \"", "after the runtime's answer {", "predates connect"}},
		{mode: "any"},
		{mode: "none"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			c, _, err := driver.Handshake(context.Background(), driver.Local{Argv: []string{exe}, Env: []string{"FAKE_PING_DRIVER=" + tt.mode}}, "fake", 10*time.Second, nil)
			require.NoError(t, err)
			defer c.Close(time.Second)
			opts, note := standIns{}.Fit(context.Background(), c, standin.Options{}, 10*time.Second)
			assert.Equal(t, tt.pre, opts.PreConnect)
			if !tt.pre {
				assert.Empty(t, note)
			}
			for _, s := range tt.contains {
				assert.Contains(t, note, s)
			}
		})
	}
}
