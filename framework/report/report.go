// Package report renders a trellis run directory as a single self-contained
// HTML page (DIR/report.html): inline CSS and inline SVG charts, no scripts,
// no external fonts or images, and no timestamps, so identical runs give
// byte-identical reports.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/rundir"
)

// Learner is one learner of a run: its metrics.json entry and its name.
type Learner struct {
	Name string
	*rundir.LearnerMetrics
	// HasCI is false for metrics written before confidence intervals
	// (and main_metric) existed.
	HasCI bool
}

// Run is a loaded run directory. Learners are sorted by main metric,
// best first (ties by name).
type Run struct {
	Manifest    rundir.Manifest
	Learners    []*Learner
	Comparisons []rundir.Comparison
}

// Load reads metrics.json, comparisons.json (optional) and manifest.json
// from dir.
func Load(dir string) (*Run, error) {
	metrics, err := rundir.ReadMetrics(dir)
	if err != nil {
		return nil, err
	}
	if len(metrics) == 0 {
		return nil, fmt.Errorf("%s: no learners", filepath.Join(dir, rundir.MetricsFile))
	}
	r := &Run{}
	for name, lm := range metrics {
		l := &Learner{Name: name, LearnerMetrics: lm, HasCI: true}
		l.fillMain()
		r.Learners = append(r.Learners, l)
	}
	sortLearners(r.Learners)
	m, err := rundir.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	r.Manifest = *m
	if r.Comparisons, err = rundir.ReadComparisons(dir); err != nil {
		return nil, err
	}
	return r, nil
}

// fillMain derives the main metric for metrics files written before
// main_metric existed: word F1 for segmentation, span F1 for span schemes,
// token accuracy otherwise.
func (l *Learner) fillMain() {
	if l.MainMetric != "" {
		return
	}
	switch {
	case l.Words != nil:
		l.MainMetric, l.MainValue = "word_f1", l.Words.F1
	case l.F1 != nil:
		l.MainMetric, l.MainValue = "f1", *l.F1
	default:
		l.MainMetric, l.MainValue = "accuracy", l.Accuracy
	}
	l.HasCI = false
}

func sortLearners(ls []*Learner) {
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].MainValue != ls[j].MainValue {
			return ls[i].MainValue > ls[j].MainValue
		}
		return ls[i].Name < ls[j].Name
	})
}

// WriteHTML renders r as HTML.
func WriteHTML(w io.Writer, r *Run) error {
	if r == nil || len(r.Learners) == 0 {
		return errors.New("report: run has no learners")
	}
	v := buildView(r)
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// Write renders DIR/report.html, whole or not at all.
func Write(dir string) error {
	r, err := Load(dir)
	if err != nil {
		return err
	}
	return WriteRun(dir, r)
}

// WriteRun renders r, loaded from dir, as DIR/report.html, whole or not
// at all: a caller that renders more of r (TuningMarkdown) loads it once.
func WriteRun(dir string, r *Run) error {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r); err != nil {
		return err
	}
	return fileio.WriteFile(filepath.Join(dir, rundir.ReportHTML), buf.Bytes())
}
