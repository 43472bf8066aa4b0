// Package report renders a trellis run directory as a single self-contained
// HTML page (DIR/report.html): inline CSS and inline SVG charts, no scripts,
// no external fonts or images, and no timestamps, so identical runs give
// byte-identical reports.
package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/trellis-nlp/trellis/framework/eval"
)

// PRF and Words are the evaluation package's figures, as metrics.json
// stores them.
type (
	PRF   = eval.PRF
	Words = eval.SegResult
)

// Point is one point of a learning curve. Loss and DevScore are nil when
// the learner did not record them (metrics.json omits zero values).
type Point struct {
	Step      int      `json:"step"`
	Loss      *float64 `json:"loss"`
	DevScore  *float64 `json:"dev_score"`
	ElapsedNS int64    `json:"elapsed_ns"`
}

// Learner is one learner's entry of metrics.json.
type Learner struct {
	Name string `json:"-"`

	eval.Result

	TrainSeconds       float64        `json:"train_seconds"`
	TagSeconds         float64        `json:"tag_seconds"`
	TagTokensPerSecond float64        `json:"tag_tokens_per_second"`
	ModelBytes         int64          `json:"model_bytes"`
	UnknownTestLabels  map[string]int `json:"unknown_test_labels"`
	LearnerType        string         `json:"learner_type"`
	Info               map[string]any `json:"info"`
	Curve              []Point        `json:"curve"`

	MainMetric string   `json:"main_metric"`
	MainValue  float64  `json:"main_value"`
	CILow      *float64 `json:"ci95_low"`
	CIHigh     *float64 `json:"ci95_high"`
}

// Comparison is one entry of comparisons.json.
type Comparison struct {
	A                   string   `json:"a"`
	B                   string   `json:"b"`
	Metric              string   `json:"metric"`
	Diff                float64  `json:"diff"`
	CILow               float64  `json:"ci_low"`
	CIHigh              float64  `json:"ci_high"`
	PValue              float64  `json:"p_value"`
	Samples             int      `json:"samples"`
	McNemarAWrongBRight int      `json:"mcnemar_a_wrong_b_right"`
	McNemarARightBWrong int      `json:"mcnemar_a_right_b_wrong"`
	McNemarP            *float64 `json:"mcnemar_p"`
}

// ManifestLearner is a learner's type and configuration in manifest.json.
type ManifestLearner struct {
	Type   string         `json:"type"`
	Config map[string]any `json:"config"`
}

// Manifest is the part of manifest.json the report shows.
type Manifest struct {
	Experiment     string                     `json:"experiment"`
	SpecFile       string                     `json:"spec_file"`
	SpecSHA256     string                     `json:"spec_sha256"`
	SpecSource     string                     `json:"spec_source"`
	DataSHA256     map[string]string          `json:"data_sha256"`
	TrellisVersion string                     `json:"trellis_version"`
	VCSRevision    string                     `json:"vcs_revision"`
	GoVersion      string                     `json:"go_version"`
	OSArch         string                     `json:"os_arch"`
	Seed           json.Number                `json:"seed"`
	Threads        int                        `json:"threads"`
	Command        []string                   `json:"command"`
	Learners       map[string]ManifestLearner `json:"learners"`
	Labels         []string                   `json:"labels"`
	Attributes     int                        `json:"attributes"`
	TestCorpus     string                     `json:"test_corpus"`
	Scheme         any                        `json:"scheme"`
	Spec           struct {
		Description string `json:"description"`
		Labels      struct {
			Column string `json:"column"`
			Scheme string `json:"scheme"`
		} `json:"labels"`
		Evaluation struct {
			Train string `json:"train"`
			Dev   string `json:"dev"`
			Test  string `json:"test"`
		} `json:"evaluation"`
	} `json:"spec"`
}

// Run is a loaded run directory. Learners are sorted by main metric,
// best first (ties by name).
type Run struct {
	Manifest    Manifest
	Learners    []*Learner
	Comparisons []Comparison
}

// Load reads metrics.json, comparisons.json (optional) and manifest.json
// from dir.
func Load(dir string) (*Run, error) {
	r := &Run{}
	mb, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
	if err != nil {
		return nil, err
	}
	metrics := map[string]*Learner{}
	if err := json.Unmarshal(mb, &metrics); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "metrics.json"), err)
	}
	if len(metrics) == 0 {
		return nil, fmt.Errorf("%s: no learners", filepath.Join(dir, "metrics.json"))
	}
	for name, l := range metrics {
		if l == nil {
			return nil, fmt.Errorf("%s: learner %q is null", filepath.Join(dir, "metrics.json"), name)
		}
		l.Name = name
		l.fillMain()
		r.Learners = append(r.Learners, l)
	}
	sortLearners(r.Learners)

	manb, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(manb))
	dec.UseNumber()
	if err := dec.Decode(&r.Manifest); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "manifest.json"), err)
	}

	cb, err := os.ReadFile(filepath.Join(dir, "comparisons.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(cb, &r.Comparisons); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "comparisons.json"), err)
		}
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
	l.CILow, l.CIHigh = nil, nil
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

// Write renders DIR/report.html atomically (a temporary file in dir,
// renamed into place).
func Write(dir string) error {
	r, err := Load(dir)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".report-*.html.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "report.html"))
}
