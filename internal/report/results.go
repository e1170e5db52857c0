package report

import (
	"encoding/json"
	"fmt"
	"os"
)

// Tally counts results by status.
func (r *Results) Tally() {
	r.Totals = map[string]int{}
	for _, x := range r.Results {
		r.Totals[x.Status]++
	}
}

// ReadResults loads a results.json.
func ReadResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a results.json: %w", path, err)
	}
	return &r, nil
}
