// Cross-validation: every learner trained and tested on K seeded folds.

package run

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// FoldSummary is one learner's cross-validation result.
type FoldSummary struct {
	Learner string    `json:"learner"`
	Metric  string    `json:"metric"`
	Folds   []float64 `json:"folds"`
	Mean    float64   `json:"mean"`
	StdDev  float64   `json:"std_dev"`
	// TrainSeconds is the mean training time per fold.
	TrainSeconds float64 `json:"train_seconds"`
}

// CrossValidate trains and tests every learner on each of the spec's K
// seeded folds of the train corpus (fold k tests on the sentences dealt to
// fold k and trains on the rest) and reports mean ± standard deviation.
// Each fold's run directory is OutDir/folds/K.
func CrossValidate(ctx context.Context, o Options) ([]FoldSummary, error) {
	ss := newSession(&o)
	s := ss.spec
	k := s.Evaluation.Folds
	train := s.Corpus(s.Evaluation.Train)
	if err := ss.checkUpFront(); err != nil {
		return nil, err
	}
	var order []string
	byLearner := map[string]*FoldSummary{}
	for f := 0; f < k; f++ {
		fs := *s
		trainPart, testPart := *train, *train
		trainPart.Name, testPart.Name = "cv-train", "cv-test"
		trainPart.Split = &spec.Split{Folds: k, Fold: f, Take: "rest", Seeded: true, Seed: s.Seed}
		testPart.Split = &spec.Split{Folds: k, Fold: f, Take: "fold", Seeded: true, Seed: s.Seed}
		fs.Corpora = append(append([]*spec.Corpus(nil), s.Corpora...), &trainPart, &testPart)
		fs.Evaluation = spec.Evaluation{Train: "cv-train", Test: "cv-test", Dev: s.Evaluation.Dev}
		fss := ss.nested(&fs, filepath.Join(ss.outDir, "folds", fmt.Sprint(f)), ss.log.With().Int("fold", f).Logger())
		fss.log.Info().Int("folds", k).Msg("cross-validation fold")
		res, err := fss.run(ctx)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f, err)
		}
		for _, name := range res.Order {
			lm := res.Metrics[name]
			sum := byLearner[name]
			if sum == nil {
				sum = &FoldSummary{Learner: name, Metric: lm.MainMetric}
				byLearner[name] = sum
				order = append(order, name)
			}
			sum.Folds = append(sum.Folds, lm.MainValue)
			sum.TrainSeconds += lm.TrainSeconds / float64(k)
		}
	}
	out := make([]FoldSummary, 0, len(order))
	for _, name := range order {
		sum := byLearner[name]
		sum.Mean, sum.StdDev = meanStd(sum.Folds)
		out = append(out, *sum)
	}
	if err := fileio.WriteJSON(filepath.Join(ss.outDir, "crossval.json"), out); err != nil {
		return nil, err
	}
	if ss.stdout != nil {
		WriteCrossValidation(ss.stdout, out, k)
	}
	return out, nil
}

// meanStd returns the mean and the sample standard deviation.
func meanStd(x []float64) (mean, std float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	for _, v := range x {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(x)-1))
}

// WriteCrossValidation prints the cross-validation table.
func WriteCrossValidation(w io.Writer, sums []FoldSummary, k int) {
	if len(sums) == 0 {
		return
	}
	width := 14
	for _, s := range sums {
		width = max(width, len(s.Learner))
	}
	fmt.Fprintf(w, "%d-fold cross-validation (seeded folds of the train corpus), metric %s:\n", k, sums[0].Metric)
	fmt.Fprintf(w, "%-*s %17s %10s  %s\n", width, "learner", "mean ± std", "train s", "per fold")
	for _, s := range sums {
		folds := ""
		for i, v := range s.Folds {
			if i > 0 {
				folds += " "
			}
			folds += fmt.Sprintf("%.2f", 100*v)
		}
		fmt.Fprintf(w, "%-*s %17s %10.2f  %s\n", width, s.Learner, fmt.Sprintf("%.2f ± %.2f", 100*s.Mean, 100*s.StdDev), s.TrainSeconds, folds)
	}
}
