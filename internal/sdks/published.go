package sdks

import (
	"context"
	"fmt"

	"github.com/copilot-sdk-conformance/conformance/internal/registry"
)

// Lister returns every version a registry publishes (pre-releases included), in any order.
type Lister func(ctx context.Context) ([]string, error)

// PublishedVersions is every version d's registry serves from 1.0.0's pre-releases on.
func PublishedVersions(ctx context.Context, d Recipe) ([]string, error) {
	if d.Published != nil {
		return d.Published(ctx)
	}
	if d.Versions == nil {
		return nil, fmt.Errorf("the %s recipe cannot list its registry's versions", d.Name)
	}
	return d.Versions(ctx, registry.Range{Lo: "1.0.0-0", Previews: true})
}
