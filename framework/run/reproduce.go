package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Manifest returns the command line and working directory a run directory
// was made with, for `trellis reproduce`.
func Manifest(dir string) (command []string, workdir string, err error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, "", err
	}
	if len(m.Command) < 2 || m.Command[1] != "run" {
		return nil, "", fmt.Errorf("%s/manifest.json records no `trellis run` command line", dir)
	}
	return m.Command, m.Dir, nil
}

// FileCheck is one file of a rerun compared with the original.
type FileCheck struct {
	File      string
	Identical bool
	Detail    string
}

// timingFields vary from run to run and are left out when metrics are
// compared.
var timingFields = []string{"train_seconds", "tag_seconds", "tag_tokens_per_second"}

// CheckRerun compares the models, predictions, per-token evaluations and
// metrics (timings excepted) of two run directories.
func CheckRerun(orig, rerun string) ([]FileCheck, error) {
	var checks []FileCheck
	for _, sub := range []string{"models", "predictions", "eval"} {
		entries, err := os.ReadDir(filepath.Join(orig, sub))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			rel := filepath.Join(sub, e.Name())
			a, err := os.ReadFile(filepath.Join(orig, rel))
			if err != nil {
				return nil, err
			}
			b, err := os.ReadFile(filepath.Join(rerun, rel))
			switch {
			case err != nil:
				checks = append(checks, FileCheck{rel, false, "missing from the rerun"})
			case bytes.Equal(a, b):
				checks = append(checks, FileCheck{rel, true, fmt.Sprintf("%d bytes", len(a))})
			default:
				checks = append(checks, FileCheck{rel, false, fmt.Sprintf("%d bytes vs %d bytes, contents differ", len(a), len(b))})
			}
		}
	}
	ma, err := metricsWithoutTimings(orig)
	if err != nil {
		return nil, err
	}
	mb, err := metricsWithoutTimings(rerun)
	if err != nil {
		return nil, err
	}
	c := FileCheck{File: "metrics.json (timings excepted)", Identical: bytes.Equal(ma, mb)}
	if !c.Identical {
		c.Detail = "figures differ"
	}
	checks = append(checks, c)
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].File < checks[j].File })
	return checks, nil
}

func metricsWithoutTimings(dir string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
	if err != nil {
		return nil, err
	}
	var m map[string]map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s/metrics.json: %w", dir, err)
	}
	for _, lm := range m {
		for _, f := range timingFields {
			delete(lm, f)
		}
		if curve, ok := lm["curve"].([]any); ok {
			for _, pt := range curve {
				if p, ok := pt.(map[string]any); ok {
					delete(p, "elapsed_ns")
				}
			}
		}
	}
	return json.Marshal(m)
}
