package container

import (
	"errors"
	"fmt"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// Leftover is one object a run (or an interrupted one) left in the engine.
type Leftover struct {
	Kind  string // "container", "network", "image"
	ID    string
	Name  string
	RunID string
}

// Leftovers lists the containers, networks and temporary images labelled LabelRun (of run runID,
// or of every run when runID is ""), and with runID "" also the untagged images labelled
// LabelProject (stages of interrupted builds).
// Tagged driver images and local bases are the image cache, not leftovers.
func Leftovers(pool *dockertest.Pool, runID string) ([]Leftover, error) {
	// LabelRun, not LabelProject: a build's intermediate containers inherit LabelProject from the
	// local base images, and a build in progress is no leftover.
	filter := LabelRun
	if runID != "" {
		filter = LabelRun + "=" + runID
	}
	var out []Leftover
	cs, err := pool.Client.ListContainers(dc.ListContainersOptions{All: true, Filters: map[string][]string{"label": {filter}}})
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		name := c.Image
		if len(c.Names) > 0 {
			name = c.Names[0] + " (" + c.Image + ")"
		}
		out = append(out, Leftover{Kind: "container", ID: c.ID, Name: name, RunID: c.Labels[LabelRun]})
	}
	nets, err := pool.Client.FilteredListNetworks(dc.NetworkFilterOpts{"label": {filter: true}})
	if err != nil {
		return nil, err
	}
	for _, n := range nets {
		out = append(out, Leftover{Kind: "network", ID: n.ID, Name: n.Name, RunID: n.Labels[LabelRun]})
	}
	imgs, err := pool.Client.ListImages(dc.ListImagesOptions{Filters: map[string][]string{"label": {filter}}})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, img := range imgs {
		seen[img.ID] = true
		out = append(out, Leftover{Kind: "image", ID: img.ID, Name: imageName(img), RunID: img.Labels[LabelRun]})
	}
	if runID == "" {
		imgs, err := pool.Client.ListImages(dc.ListImagesOptions{Filters: map[string][]string{"label": {LabelProject}, "dangling": {"true"}}})
		if err != nil {
			return nil, err
		}
		for _, img := range imgs {
			if !seen[img.ID] {
				out = append(out, Leftover{Kind: "image", ID: img.ID, Name: imageName(img)})
			}
		}
	}
	return out, nil
}

func imageName(img dc.APIImages) string {
	if len(img.RepoTags) > 0 && img.RepoTags[0] != "<none>:<none>" {
		return img.RepoTags[0]
	}
	return "<untagged> " + img.Labels[LabelKind]
}

// Remove removes leftovers: containers first (they hold networks and images).
func Remove(pool *dockertest.Pool, items []Leftover) error {
	var errs []error
	for _, kind := range []string{"container", "network", "image"} {
		for _, it := range items {
			if it.Kind != kind {
				continue
			}
			var err error
			switch kind {
			case "container":
				err = pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: it.ID, Force: true, RemoveVolumes: true})
				var nf *dc.NoSuchContainer
				if errors.As(err, &nf) {
					err = nil
				}
			case "network":
				err = pool.Client.RemoveNetwork(it.ID)
			case "image":
				err = pool.Client.RemoveImageExtended(it.ID, dc.RemoveImageOptions{Force: true})
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("remove %s %s: %w", kind, short(it.ID), err))
			}
		}
	}
	return errors.Join(errs...)
}

// Cleanup removes everything run runID left: call it when a run ends, however it ends.
func Cleanup(pool *dockertest.Pool, runID string) error {
	if runID == "" {
		return errors.New("cleanup: no run id")
	}
	items, err := Leftovers(pool, runID)
	if err != nil {
		return err
	}
	return Remove(pool, items)
}
