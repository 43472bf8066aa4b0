// Reproducing a run: its command from the manifest, and a rerun checked against it (CheckRerun).

package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/trellis-nlp/trellis/framework/plural"
	"github.com/trellis-nlp/trellis/framework/rundir"
)

// Manifest returns the command line and working directory a run directory
// was made with, for `trellis reproduce`.
func Manifest(dir string) (command []string, workdir string, err error) {
	m, err := rundir.ReadManifest(dir)
	if err != nil {
		return nil, "", err
	}
	if len(m.Command) < 2 || m.Command[1] != "run" {
		return nil, "", fmt.Errorf("%s/manifest.json records no `trellis run` command line", dir)
	}
	return m.Command, m.WorkingDirectory, nil
}

// FileCheck is one file of a rerun compared with the original.
type FileCheck struct {
	File      string
	Identical bool
	Detail    string
}

// CheckRerun compares the models, predictions, per-token evaluations and
// metrics (timings excepted) of two run directories.
func CheckRerun(orig, rerun string) ([]FileCheck, error) {
	var checks []FileCheck
	for _, sub := range []string{rundir.ModelsDir, rundir.PredictionsDir, rundir.EvalDir} {
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
				checks = append(checks, FileCheck{rel, true, plural.Count(len(a), "byte")})
			default:
				checks = append(checks, FileCheck{rel, false, fmt.Sprintf("%s vs %s, contents differ", plural.Count(len(a), "byte"), plural.Count(len(b), "byte"))})
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

// metricsWithoutTimings is dir's metrics.json without its timings, as
// JSON to compare.
func metricsWithoutTimings(dir string) ([]byte, error) {
	m, err := rundir.ReadMetrics(dir)
	if err != nil {
		return nil, err
	}
	return json.Marshal(m.WithoutTimings())
}
