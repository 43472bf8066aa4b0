// Comparing run directories (CompareDirs).

package run

import (
	"fmt"
	"io"
	"sort"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// CompareDirs puts the learners of earlier runs side by side — the same
// table, intervals and significance tests a single run prints — naming
// each "DIR:learner" when there is more than one directory. Runs must have
// tested on the same data (same test file hash and the same gold labels).
func CompareDirs(dirs []string, seed uint64, w io.Writer) (*Result, error) {
	if len(dirs) == 0 {
		return nil, &ArgumentError{"compare needs at least one run directory"}
	}
	res := &Result{Metrics: rundir.Metrics{}, tests: map[string][]eval.Sentence{}}
	var sch scheme.Scheme
	var testHash, firstDir string
	for k, dir := range dirs {
		man, err := rundir.ReadManifest(dir)
		if err != nil {
			return nil, err
		}
		metrics, err := rundir.ReadMetrics(dir)
		if err != nil {
			return nil, err
		}
		h := man.DataSHA256[man.TestCorpus]
		if k == 0 {
			sch, testHash, firstDir = man.Scheme, h, dir
		} else {
			if h != testHash || h == "" {
				return nil, fmt.Errorf("%s and %s were tested on different data (test corpus SHA-256 %.12s… vs %.12s…); their scores are not comparable", firstDir, dir, testHash, h)
			}
			if man.Scheme != sch {
				return nil, fmt.Errorf("%s uses label scheme %s and %s uses %s", firstDir, sch, dir, man.Scheme)
			}
		}
		names := make([]string, 0, len(metrics))
		for n := range metrics {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			lm := metrics[n]
			sents, err := rundir.ReadEvalTSV(rundir.EvalPath(dir, n))
			if err != nil {
				return nil, fmt.Errorf("learner %q of %s: %w", n, dir, err)
			}
			lm.Result = eval.Evaluate(sents, eval.Options{Scheme: sch})
			label := n
			if len(dirs) > 1 {
				label = dir + ":" + n
			}
			res.Metrics[label], res.tests[label] = lm, sents
			res.Order = append(res.Order, label)
		}
	}
	if err := compareLearners(res, sch, seed); err != nil {
		return nil, err
	}
	WriteTable(w, res, sch)
	return res, nil
}
