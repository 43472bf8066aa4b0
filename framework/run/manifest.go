// The manifest, the data hashes, and writing a finished run's results
// and reports.

package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"

	htmlreport "github.com/trellis-nlp/trellis/framework/report"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// Version is trellis's version as recorded in manifests and models.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func vcsRevision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return ""
}

// hashData returns the SHA-256 of the train, dev and test files by corpus
// name, for the manifest, the models' provenance and the checkpoints.
func hashData(s *spec.Spec) (map[string]string, error) {
	hashes := map[string]string{}
	for _, c := range s.Corpora {
		if c.Name != s.Evaluation.Train && c.Name != s.Evaluation.Test && c.Name != s.Evaluation.Dev {
			continue
		}
		h, err := fileio.SHA256File(c.Path)
		if err != nil {
			return nil, err
		}
		hashes[c.Name] = h
	}
	return hashes, nil
}

// writeResults writes the run's metrics, manifest, comparisons and
// reports, removes its finished checkpoints and prints the table.
func writeResults(ss *session, res *Result, manifest *rundir.Manifest) error {
	s := ss.spec
	if err := rundir.WriteMetrics(ss.outDir, res.Metrics); err != nil {
		return err
	}
	if err := rundir.WriteManifest(ss.outDir, manifest); err != nil {
		return err
	}
	if len(res.Comparisons) > 0 {
		if err := rundir.WriteComparisons(ss.outDir, res.Comparisons); err != nil {
			return err
		}
	}
	// Both reports render the run as written, loaded once.
	loaded, err := htmlreport.Load(ss.outDir)
	if err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	var table bytes.Buffer
	WriteTable(&table, res, s.Labels.Scheme)
	report := fmt.Sprintf("# %s\n\n%s\n```\n%s```\n", s.Name, s.Description, table.String())
	report += htmlreport.TuningMarkdown(loaded, res.Order)
	report += stagesMarkdown(res, manifest)
	report += rerankMarkdown(res)
	if err := fileio.WriteFile(filepath.Join(ss.outDir, rundir.ReportMarkdown), []byte(report)); err != nil {
		return err
	}
	if err := htmlreport.WriteRun(ss.outDir, loaded); err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	// Finished: nothing is left to resume. The folder is this run's own
	// (OutDir is a partial folder of rundir's, or a fold's inside one).
	if err := os.RemoveAll(filepath.Join(ss.outDir, CheckpointDir)); err != nil {
		return err
	}
	if ss.stdout != nil {
		io.Copy(ss.stdout, &table)
	}
	return nil
}

// newManifest records where the run came from.
func newManifest(ss *session, enc *encoded, dataHashes map[string]string, learners map[string]rundir.ManifestLearner) (*rundir.Manifest, error) {
	s := ss.spec
	specJSON, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return &rundir.Manifest{
		Experiment: s.Name, Description: s.Description,
		SpecFile: s.File, SpecSHA256: s.Hash, Spec: specJSON, SpecSource: string(s.Source),
		DataSHA256: dataHashes, TrellisVersion: Version(), VCSRevision: vcsRevision(),
		GoVersion: runtime.Version(), OSArch: runtime.GOOS + "/" + runtime.GOARCH,
		Seed: s.Seed, Threads: ss.threads, Command: ss.opts.Command, WorkingDirectory: workingDirectory(),
		TrainCorpus: s.Evaluation.Train, DevCorpus: s.Evaluation.Dev, TestCorpus: s.Evaluation.Test,
		LabelColumn: s.Labels.Column, Scheme: s.Labels.Scheme, Encode: s.Labels.Encode,
		Learners: learners, Plugins: manifestPlugins(enc.mapper.Templates()),
		Attributes: enc.mapper.Attrs().Len(), Labels: enc.mapper.Labels().Names(),
	}, nil
}

func workingDirectory() string {
	d, err := os.Getwd()
	if err != nil {
		return ""
	}
	return d
}

// manifestPlugins lists, by template name, the plugin, version, checksum,
// binary and config of every plugin template.
func manifestPlugins(templates []feature.TemplateSpec) map[string]model.Plugin {
	out := map[string]model.Plugin{}
	for _, p := range (&model.Header{Templates: templates}).Plugins() {
		out[p.Template] = p
	}
	return out
}
