package report

// Reference is what the pinned version of each SDK put on the wire for every field of its
// surface (the surface scenarios' observations: where each field went, set alone), recorded
// from a run of the pins and committed. A run without some SDK compares the SDKs it ran with
// the reference of the others, so a run of one SDK (a release candidate, an older version, a
// checkout) is still judged against how every other SDK spells, places and shapes each field.
type Reference struct {
	// Comment says how the file is made; it is not read.
	Comment string         `json:"comment,omitempty"`
	SDKs    []ReferenceSDK `json:"sdks"`
}

// ReferenceSDK is one pinned SDK's surface observations, per surface scenario.
type ReferenceSDK struct {
	SDK       string              `json:"sdk"`
	Version   string              `json:"version"`
	Scenarios []ReferenceScenario `json:"scenarios"`
}

// ReferenceScenario is one surface scenario's observations ("surface <request> <field>" -> where).
type ReferenceScenario struct {
	Feature      string            `json:"feature"`
	Scenario     string            `json:"scenario"`
	Observations map[string]string `json:"observations"`
}
