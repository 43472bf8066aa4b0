package rundir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/trellis-nlp/trellis/framework/dual"
	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// The files and folders of a run directory. `run` writes them with the
// types below; `report`, `compare`, `reproduce` and the command line read
// them back with the same types.
const (
	ManifestFile    = "manifest.json"
	MetricsFile     = "metrics.json"
	ComparisonsFile = "comparisons.json"
	ReportMarkdown  = "report.md"
	ReportHTML      = "report.html"
	ModelsDir       = "models"
	PredictionsDir  = "predictions"
	EvalDir         = "eval"
	TuneDir         = "tune"
)

// TunePath is where dir keeps the record of a learner's tuning search.
func TunePath(dir, learner string) string {
	return filepath.Join(dir, TuneDir, learner+".json")
}

// Tuning is tune/NAME.json (and a learner's entry in metrics.json): every
// candidate of a tune block's search with its score, and the pick. The
// scores are on the dev corpus, or the mean over cross-validation folds
// of the train corpus; never on the test corpus.
type Tuning struct {
	Learner string `json:"learner"`
	Method  string `json:"method"`
	// By is "dev" (scored on the dev corpus Corpus) or "cv" (Folds-fold
	// cross-validation on the train corpus Corpus, seeded folds).
	By     string `json:"by"`
	Corpus string `json:"corpus"`
	Folds  int    `json:"folds,omitempty"`
	Metric string `json:"metric"`
	Seed   uint64 `json:"seed"`
	// Candidates in the order they were tried; Pick indexes the one with
	// the highest score (the first of equals).
	Candidates []TuningCandidate `json:"candidates"`
	Pick       int               `json:"pick"`
}

// TuningCandidate is one combination of settings and its score.
type TuningCandidate struct {
	Settings map[string]float64 `json:"settings"`
	Score    float64            `json:"score"`
	// FoldScores are the per-fold scores of cross-validation.
	FoldScores   []float64 `json:"fold_scores,omitempty"`
	TrainSeconds float64   `json:"train_seconds"`
}

// Picked returns the settings of the pick.
func (t *Tuning) Picked() map[string]float64 { return t.Candidates[t.Pick].Settings }

// WriteTuning writes dir/tune/NAME.json.
func WriteTuning(dir string, t *Tuning) error {
	if err := os.MkdirAll(filepath.Join(dir, TuneDir), 0o755); err != nil {
		return err
	}
	return fileio.WriteJSON(TunePath(dir, t.Learner), t)
}

// ModelPath is where run directory dir keeps a learner's model.
func ModelPath(dir, learner string) string {
	return filepath.Join(dir, ModelsDir, learner+".model")
}

// PredictionsPath is where dir keeps a learner's tagged test file.
func PredictionsPath(dir, learner string) string {
	return filepath.Join(dir, PredictionsDir, learner+".txt")
}

// EvalPath is where dir keeps a learner's gold and predicted label per
// test token (see WriteEvalTSV).
func EvalPath(dir, learner string) string {
	return filepath.Join(dir, EvalDir, learner+".tsv")
}

// Manifest is manifest.json: where a run came from, enough to rerun it
// and to tell whether two runs are comparable.
type Manifest struct {
	Experiment  string `json:"experiment"`
	Description string `json:"description,omitempty"`
	SpecFile    string `json:"spec_file"`
	SpecSHA256  string `json:"spec_sha256"`
	// Spec is the resolved spec as JSON (spec.Spec marshalled); readers
	// that need its parts use the fields below.
	Spec             json.RawMessage   `json:"spec"`
	SpecSource       string            `json:"spec_source"`
	DataSHA256       map[string]string `json:"data_sha256"`
	TrellisVersion   string            `json:"trellis_version"`
	VCSRevision      string            `json:"vcs_revision"`
	GoVersion        string            `json:"go_version"`
	OSArch           string            `json:"os_arch"`
	Seed             uint64            `json:"seed"`
	Threads          int               `json:"threads"`
	Command          []string          `json:"command"`
	WorkingDirectory string            `json:"working_directory"`
	TrainCorpus      string            `json:"train_corpus,omitempty"`
	DevCorpus        string            `json:"dev_corpus,omitempty"`
	TestCorpus       string            `json:"test_corpus"`
	LabelColumn      string            `json:"label_column,omitempty"`
	Scheme           scheme.Scheme     `json:"scheme"`
	// Encode is the encoding the learners trained in, when not Scheme.
	Encode     scheme.Scheme              `json:"encode,omitempty"`
	Learners   map[string]ManifestLearner `json:"learners"`
	Plugins    map[string]model.Plugin    `json:"plugins"`
	Attributes int                        `json:"attributes"`
	Labels     []string                   `json:"labels"`
}

// ManifestLearner is a learner's type and its configuration (the
// learner's own settings, as it marshals them).
type ManifestLearner struct {
	Type   string          `json:"type"`
	Config json.RawMessage `json:"config"`
	// InitModel is the model the learner continued training from
	// (init_model), when it did.
	InitModel *ManifestInitModel `json:"init_model,omitempty"`
	// Tuned are the settings a tune block picked (Config has them); the
	// search is in tune/NAME.json.
	Tuned   map[string]float64 `json:"tuned,omitempty"`
	TunedBy string             `json:"tuned_by,omitempty"`
	// Stage is the first stage of a second-stage learner: its learner,
	// the column, the jackknifing folds and the embedded model's digest.
	Stage *model.Stage `json:"stage,omitempty"`
}

// ManifestInitModel is a learner's starting model: its path as resolved
// against the spec's folder and its SHA-256.
type ManifestInitModel struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// LearnerMetrics are one learner's figures in metrics.json.
type LearnerMetrics struct {
	*eval.Result
	TrainSeconds float64 `json:"train_seconds"`
	// StageSeconds, for a second stage, is the time its first stage took
	// (the jackknifing folds and the model on all of train, tagging
	// included); TrainSeconds is the second stage's own.
	StageSeconds float64 `json:"stage_seconds,omitempty"`
	// RerankSeconds, for a reranked learner (a rerank block), is the time
	// its reranker took: jackknifing the first pass (the fold models and
	// their k-best lists) and training the reranker. TrainSeconds is the
	// first pass's on all of train; the figures of the result are the
	// reranked labels'.
	RerankSeconds      float64        `json:"rerank_seconds,omitempty"`
	TagSeconds         float64        `json:"tag_seconds"`
	TagTokensPerSecond float64        `json:"tag_tokens_per_second"`
	ModelBytes         int64          `json:"model_bytes"`
	UnknownTestLabels  map[string]int `json:"unknown_test_labels,omitempty"`
	Learner            string         `json:"learner_type"`
	Info               map[string]any `json:"info,omitempty"`
	// Curve is the learning curve; a zero Loss or DevScore was not
	// recorded (metrics.json omits it).
	Curve []learn.Point `json:"curve,omitempty"`
	// The main metric (span F1, word F1 or accuracy) with its 95%
	// bootstrap confidence interval over test sentences.
	MainMetric string  `json:"main_metric"`
	MainValue  float64 `json:"main_value"`
	CILow      float64 `json:"ci95_low"`
	CIHigh     float64 `json:"ci95_high"`
	// Tuning is the tune block's search, when the learner had one.
	Tuning *Tuning `json:"tuning,omitempty"`
	// Joint counts the test documents decoded jointly (consistency and
	// constraint blocks): how many were certified optimal, in how many
	// subgradient steps.
	Joint *dual.Stats `json:"joint,omitempty"`
	// Rerank, for a reranked learner, scores the test corpus's k-best
	// lists beside the reranked labels.
	Rerank *RerankFigures `json:"rerank,omitempty"`
}

// RerankFigures describe a reranked learner's test k-best lists: K
// candidates per sentence, the best corpus F1 any choice among them gives
// (OracleF1), the first pass's 1-best F1 (FirstPassF1; fractions in
// [0,1], as Result's F1) and the sentences whose reranked choice is not
// the 1-best (Changed).
type RerankFigures struct {
	K           int     `json:"k"`
	OracleF1    float64 `json:"oracle_f1"`
	FirstPassF1 float64 `json:"first_pass_f1"`
	Changed     int     `json:"changed"`
}

// Metrics is metrics.json: the figures of every learner by name.
type Metrics map[string]*LearnerMetrics

// WithoutTimings returns a copy of m without the figures that vary from
// run to run (training and tagging times, learning-curve timestamps),
// for comparing a rerun with the original.
func (m Metrics) WithoutTimings() Metrics {
	out := Metrics{}
	for name, lm := range m {
		c := *lm
		c.TrainSeconds, c.TagSeconds, c.TagTokensPerSecond, c.StageSeconds, c.RerankSeconds = 0, 0, 0, 0, 0
		c.Curve = append([]learn.Point(nil), lm.Curve...)
		for i := range c.Curve {
			c.Curve[i].Elapsed = 0
		}
		if lm.Tuning != nil {
			t := *lm.Tuning
			t.Candidates = append([]TuningCandidate(nil), t.Candidates...)
			for i := range t.Candidates {
				t.Candidates[i].TrainSeconds = 0
			}
			c.Tuning = &t
		}
		out[name] = &c
	}
	return out
}

// Comparison is one entry of comparisons.json: a pair of learners tested
// on the same sentences.
type Comparison struct {
	A string `json:"a"`
	B string `json:"b"`
	*eval.Comparison
	// McNemar's test on token correctness.
	McNemarAWrongBRight int     `json:"mcnemar_a_wrong_b_right"`
	McNemarARightBWrong int     `json:"mcnemar_a_right_b_wrong"`
	McNemarP            float64 `json:"mcnemar_p"`
}

// WriteManifest, WriteMetrics and WriteComparisons write a run's JSON
// files into dir, each whole or not at all.
func WriteManifest(dir string, m *Manifest) error {
	return fileio.WriteJSON(filepath.Join(dir, ManifestFile), m)
}

func WriteMetrics(dir string, m Metrics) error {
	return fileio.WriteJSON(filepath.Join(dir, MetricsFile), m)
}

func WriteComparisons(dir string, c []Comparison) error {
	return fileio.WriteJSON(filepath.Join(dir, ComparisonsFile), c)
}

// ReadManifest reads dir's manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	var m Manifest
	if err := readJSON(dir, ManifestFile, &m); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a run directory: %w", dir, err)
		}
		return nil, err
	}
	return &m, nil
}

// ReadMetrics reads dir's metrics.json; every learner has an entry.
func ReadMetrics(dir string) (Metrics, error) {
	var m Metrics
	if err := readJSON(dir, MetricsFile, &m); err != nil {
		return nil, err
	}
	for name, lm := range m {
		if lm == nil {
			return nil, fmt.Errorf("%s: learner %q is null", filepath.Join(dir, MetricsFile), name)
		}
	}
	return m, nil
}

// ReadComparisons reads dir's comparisons.json; a run of one learner has
// none (nil, no error).
func ReadComparisons(dir string) ([]Comparison, error) {
	var c []Comparison
	err := readJSON(dir, ComparisonsFile, &c)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return c, err
}

func readJSON(dir, name string, v any) error {
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteEvalTSV writes a learner's gold and predicted label per test token
// to path: "gold<TAB>pred<TAB>oov" (oov 1 or 0), a blank line after each
// sentence. It is what `trellis compare` tests runs against each other
// with, without re-reading corpora in their own formats.
func WriteEvalTSV(path string, sents []eval.Sentence) error {
	var b bytes.Buffer
	for _, s := range sents {
		for i := range s.Gold {
			oov := "0"
			if s.OOV != nil && s.OOV[i] {
				oov = "1"
			}
			b.WriteString(s.Gold[i])
			b.WriteByte('\t')
			b.WriteString(s.Pred[i])
			b.WriteByte('\t')
			b.WriteString(oov)
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fileio.WriteFile(path, b.Bytes())
}

// ReadEvalTSV reads what WriteEvalTSV wrote; errors carry file:line.
func ReadEvalTSV(path string) ([]eval.Sentence, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []eval.Sentence
	var cur eval.Sentence
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" {
			if len(cur.Gold) > 0 {
				out = append(out, cur)
			}
			cur = eval.Sentence{}
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: want gold, predicted and oov fields, got %d fields", path, line, len(fields))
		}
		cur.Gold = append(cur.Gold, fields[0])
		cur.Pred = append(cur.Pred, fields[1])
		cur.OOV = append(cur.OOV, fields[2] == "1")
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(cur.Gold) > 0 {
		out = append(out, cur)
	}
	return out, nil
}
