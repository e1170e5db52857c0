package sdks

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stand-in for a generated params record whose @JsonProperty has the mistake of issue 30 item 6
// (runCompactionPreflight written runCompactionPreFlight, which Jackson then reads and writes
// alike), a config class with fluent and void setters and an enum with a static factory, and a
// record holding an interface that reflection cannot build.
const javaBynameProbe = `package conformance.driver;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

public class ByNameProbe {
    public record SwitchParams(@JsonProperty("modelId") String modelId,
            @JsonProperty("runCompactionPreFlight") Boolean runCompactionPreflight) {
    }

    public enum Mode {
        A("alpha"), B("beta");

        private final String v;

        Mode(String v) {
            this.v = v;
        }

        public String getValue() {
            return v;
        }

        public static Mode fromValue(String s) {
            for (Mode m : values()) {
                if (m.v.equals(s)) {
                    return m;
                }
            }
            throw new IllegalArgumentException(s);
        }
    }

    public static class Cfg {
        private Mode mode;
        private List<SwitchParams> items;

        public Cfg setMode(Mode m) {
            mode = m;
            return this;
        }

        public Mode getMode() {
            return mode;
        }

        public void setItems(List<SwitchParams> i) {
            items = i;
        }

        public List<SwitchParams> getItems() {
            return items;
        }
    }

    public interface Shape {
    }

    public record Holder(Shape shape, Mode mode) {
    }

    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = new ObjectMapper().setSerializationInclusion(JsonInclude.Include.NON_NULL)
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        Cfg cfg = (Cfg) ByName.build(Cfg.class, mapper.readTree("{\"mode\":\"beta\",\"items\":[{\"modelId\":\"x\"}]}"),
                new ByName.Result(), "", mapper);
        ByName.plan(Holder.class, new HashSet<>());
        for (int i = 0; i + 1 < args.length; i += 2) { // one line per (way, params) pair
            JsonNode params = mapper.readTree(args[i + 1]);
            ByName.Result r = new ByName.Result();
            Object v = args[i].equals("byname") ? ByName.build(SwitchParams.class, params, r, "", mapper)
                    : mapper.convertValue(params, SwitchParams.class);
            JsonNode held = mapper.valueToTree(v);
            List<String> lost = new ArrayList<>();
            ByName.unrepresentable(params, held, r, "", lost);
            ObjectNode out = mapper.createObjectNode();
            out.set("wire", held);
            out.set("unrepresentable", mapper.valueToTree(lost));
            out.put("mode", cfg.getMode().name());
            out.put("items", cfg.getItems().get(0).modelId());
            out.set("tally", mapper.valueToTree(ByName.TALLY.keySet()));
            System.out.println(out);
        }
    }
}
`

// TestJavaBuildsByName proves the class for the Java driver: built by component name, a key the
// SDK's @JsonProperty renames reaches the wire and is left for the harness to judge; built with
// Jackson (the SDK's own mapping), the mistake cancels out and the key is excused as
// unrepresentable, so no check could fail. It compiles the driver's ByName with a probe against
// the Jackson jars Maven keeps in ~/.m2 (skipped without javac or those jars).
func TestJavaBuildsByName(t *testing.T) {
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("javac not on PATH")
	}
	java, err := exec.LookPath("java")
	require.NoError(t, err)
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	var cp []string
	for _, a := range []string{"jackson-core", "jackson-databind", "jackson-annotations"} {
		jars, _ := filepath.Glob(filepath.Join(home, ".m2", "repository", "com", "fasterxml", "jackson", "core", a, "*", a+"-*.jar"))
		var plain []string
		for _, j := range jars {
			if !strings.HasSuffix(j, "-sources.jar") && !strings.HasSuffix(j, "-javadoc.jar") {
				plain = append(plain, j)
			}
		}
		if len(plain) == 0 {
			t.Skipf("no %s jar in ~/.m2 (a java driver build puts it there)", a)
		}
		cp = append(cp, plain[len(plain)-1])
	}
	src, err := filepath.Abs(filepath.Join("..", "..", "drivers", "java", "src", "main", "java", "conformance", "driver"))
	require.NoError(t, err)
	dir := t.TempDir()
	probe := filepath.Join(dir, "ByNameProbe.java")
	require.NoError(t, os.WriteFile(probe, []byte(javaBynameProbe), 0o644))
	classes := filepath.Join(dir, "classes")
	classpath := strings.Join(cp, string(os.PathListSeparator))
	compile := exec.Command(javac, "-d", classes, "-cp", classpath, probe,
		filepath.Join(src, "ByName.java"), filepath.Join(src, "Out.java"), filepath.Join(src, "Failure.java"))
	b, err := compile.CombinedOutput()
	require.NoError(t, err, "%s", b)

	type out struct {
		Wire            map[string]any `json:"wire"`
		Unrepresentable []string       `json:"unrepresentable"`
		Mode            string         `json:"mode"`
		Items           string         `json:"items"`
		Tally           []string       `json:"tally"`
	}
	cases := []struct {
		name   string
		way    string
		params string
		wire   map[string]any
		unrep  []string
	}{
		{"by name: the renamed key reaches the wire, not excused", "byname",
			`{"modelId": "m", "runCompactionPreflight": true}`,
			map[string]any{"modelId": "m", "runCompactionPreFlight": true}, []string{}},
		{"Jackson: the mistake cancels out and the key is excused", "jackson",
			`{"modelId": "m", "runCompactionPreflight": true}`,
			map[string]any{"modelId": "m"}, []string{"/runCompactionPreflight"}},
		{"by name: a key the record has no component for is unrepresentable", "byname",
			`{"modelId": "m", "noSuchField": 1}`,
			map[string]any{"modelId": "m"}, []string{"/noSuchField"}},
		{"by name: an explicit null NON_NULL drops is unrepresentable", "byname",
			`{"modelId": "m", "runCompactionPreflight": null}`,
			map[string]any{"modelId": "m"}, []string{"/runCompactionPreflight"}},
	}
	// One JVM for every case: a JVM start costs seconds on a loaded machine.
	argv := []string{"-cp", classes + string(os.PathListSeparator) + classpath, "conformance.driver.ByNameProbe"}
	for _, tc := range cases {
		argv = append(argv, tc.way, tc.params)
	}
	b, err = exec.Command(java, argv...).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("probe failed: %s", ee.Stderr)
	}
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, len(cases))
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got out
			require.NoError(t, json.Unmarshal([]byte(lines[i]), &got))
			assert.Equal(t, tc.wire, got.Wire)
			assert.Equal(t, tc.unrep, got.Unrepresentable)
			assert.Equal(t, "B", got.Mode, "the enum is built through its static factory")
			assert.Equal(t, "x", got.Items, "a List<record> is built through a void setter")
			assert.Equal(t, []string{"conformance.driver.ByNameProbe$Shape"}, got.Tally,
				"the interface is tallied as built through the deserializer")
		})
	}
}
