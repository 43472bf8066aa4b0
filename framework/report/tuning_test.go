package report

import (
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/rundir"
)

// tunedRun is a loaded run with two tuned learners (one by dev, one by
// cross-validation) and one without a tune block, sorted as Load sorts.
func tunedRun() *Run {
	cv := &rundir.Tuning{Learner: "crf", Method: "grid", By: "cv", Corpus: "train", Folds: 2, Metric: "f1", Pick: 1,
		Candidates: []rundir.TuningCandidate{
			{Settings: map[string]float64{"c2": 0.1, "c1": 0}, Score: 0.9123, FoldScores: []float64{0.91, 0.9146}, TrainSeconds: 12.345},
			{Settings: map[string]float64{"c2": 1e-05, "c1": 0.5}, Score: 0.93, FoldScores: []float64{0.92, 0.94}, TrainSeconds: 3.25},
		}}
	dev := &rundir.Tuning{Learner: "hmm", Method: "grid", By: "dev", Corpus: "dev", Metric: "accuracy",
		Candidates: []rundir.TuningCandidate{{Settings: map[string]float64{"alpha": 0.5}, Score: 0.8, TrainSeconds: 0.04}}}
	return &Run{Learners: []*Learner{
		{Name: "crf", LearnerMetrics: &rundir.LearnerMetrics{Tuning: cv}},
		{Name: "hmm", LearnerMetrics: &rundir.LearnerMetrics{Tuning: dev}},
		{Name: "plain", LearnerMetrics: &rundir.LearnerMetrics{}},
	}}
}

// TestTuningMarkdown pins report.md's tuning sections: the text the run
// wrote before the report package rendered it, in the order given.
func TestTuningMarkdown(t *testing.T) {
	want := `
## Tuning hmm

grid search, 1 candidates scored on the dev corpus "dev" (accuracy; the test corpus is not used).

| alpha | score | folds | train s | |
|---|---|---|---|---|
| 0.5 | 80.00 |  | 0.0 | **picked** |

## Tuning crf

grid search, 2 candidates scored by 2-fold cross-validation on the train corpus "train" (f1; the test corpus is not used).

| c1 | c2 | score | folds | train s | |
|---|---|---|---|---|---|
| 0 | 0.1 | 91.23 | 91.00 91.46 | 12.3 |  |
| 0.5 | 1e-05 | 93.00 | 92.00 94.00 | 3.2 | **picked** |
`
	if got := TuningMarkdown(tunedRun(), []string{"plain", "hmm", "crf", "gone"}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestTuningViews: the HTML's views of the same run, in the learners'
// order, with its own wording and time format.
func TestTuningViews(t *testing.T) {
	tv := tunings(tunedRun().Learners)
	if len(tv) != 2 || tv[0].Learner != "crf" || tv[1].Learner != "hmm" {
		t.Fatalf("views %+v, want crf then hmm", tv)
	}
	if !strings.HasPrefix(tv[0].How, "grid search, 2 candidates, mean Span F1 over 2-fold cross-validation") {
		t.Errorf("How = %q", tv[0].How)
	}
	if r := tv[0].Rows[0]; r.Seconds() != "12.3" || strings.Join(r.Values, " ") != "0 0.1" || r.Folds != "91.00 91.46" {
		t.Errorf("row %+v", r)
	}
	if r := tv[1].Rows[0]; r.Seconds() != "0.04" || !r.Picked {
		t.Errorf("row %+v", r)
	}
}
