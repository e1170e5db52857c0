package steps

import (
	"errors"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario/scenariotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Without the runtime's schema the schema step is unavailable (a setup problem), never unsupported.
func TestSchemaStepWithoutSchemaIsUnavailable(t *testing.T) {
	w := &world{Scenario: &scenario.Scenario{T: schemaless{scenariotest.Target{}}}}
	var ua *ErrUnavailable
	require.True(t, errors.As(w.conformsToSchema(), &ua))
	var un *ErrUnsupported
	assert.False(t, errors.As(w.conformsToSchema(), &un))
}

type schemaless struct{ scenariotest.Target }

func (schemaless) SchemaLoaded() bool { return false }
