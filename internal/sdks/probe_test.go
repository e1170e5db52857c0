package sdks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The declaration scanners find a member only inside its owner's declaration.
func TestDeclarationScanners(t *testing.T) {
	dts := `export interface Tool<TArgs = unknown> {
    name: string;
    isTerminal?: boolean;
    handler: (args: TArgs) => Promise<{ nested: string }>;
}
export type ToolBinaryResult = {
    data: string;
    description?: string;
};
export declare class CopilotSession {
    readonly sessionId: string;
    send(options: MessageOptions): Promise<string>;
}
export declare const RuntimeConnection: {
    readonly forUri: (url: string) => UriRuntimeConnection;
};
export interface Other {
    defer?: "auto";
}
`
	rs := `pub struct ToolBinaryResult {
    pub data: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}
pub enum ToolResult {
    /// Text.
    Text(String),
    Expanded(ToolResultExpanded),
}
impl<'a> SessionRpcTools<'a> {
    pub async fn handle_pending(&self) {}
}
impl Tool {
    pub fn with_is_terminal(mut self, v: bool) -> Self { self }
}
struct Other { pub metadata: u8 }
`
	tests := []struct {
		sym  string
		ts   bool // a TypeScript symbol, else Rust
		want bool
	}{
		{"Tool.isTerminal", true, true},
		{"Tool.defer", true, false},  // declared on Other only
		{"Tool.nested", true, false}, // a member of a nested object type is not the owner's
		{"ToolBinaryResult.description", true, true},
		{"ToolBinaryResult.metadata", true, false},
		{"CopilotSession.send", true, true},
		{"CopilotSession.setTools", true, false},
		{"CopilotSession", true, true},
		{"HistoryClearContextRequest", true, false},
		{"RuntimeConnection.forUri", true, true},
		{"RuntimeConnection.forStdio", true, false},
		{"ToolBinaryResult.description", false, true},
		{"ToolBinaryResult.metadata", false, false},
		{"Other.metadata", false, true},
		{"ToolResult::Expanded", false, true},
		{"ToolResult::Json", false, false},
		{"SessionRpcTools::handle_pending", false, true},
		{"SessionRpcTools::set", false, false},
		{"Tool::with_is_terminal", false, true},
		{"Tool::with_defer", false, false},
	}
	for _, tt := range tests {
		var got bool
		if tt.ts {
			got = dtsHas(dts, tt.sym)
		} else {
			var err error
			got, err = rustHas(rs, tt.sym)
			require.NoError(t, err)
		}
		assert.Equal(t, tt.want, got, "%s (typescript %v)", tt.sym, tt.ts)
	}
	_, err := rustHas(rs, "Tool")
	assert.Error(t, err, "a Rust symbol names an item or a field")
}
