package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/trellis-nlp/trellis/framework/scheme"
)

// Comparison is the outcome of Compare. Diff is A - B on the full test set.
type Comparison struct {
	Metric  string  `json:"metric"` // "f1", "word_f1" or "accuracy"
	A       float64 `json:"a"`
	B       float64 `json:"b"`
	Diff    float64 `json:"diff"`
	CILow   float64 `json:"ci_low"` // 95% paired-bootstrap percentile interval of Diff
	CIHigh  float64 `json:"ci_high"`
	PValue  float64 `json:"p_value"` // two-sided, approximate randomization
	Samples int     `json:"samples"`
}

// counts are one sentence's sufficient statistics: the metric of any set
// of sentences is a function of their summed counts.
type counts struct{ correct, gold, pred int }

func (c *counts) add(d counts) {
	c.correct += d.correct
	c.gold += d.gold
	c.pred += d.pred
}

func metricName(s scheme.Scheme) string {
	switch {
	case s.HasSpans():
		return "f1"
	case s.IsSegmentation():
		return "word_f1"
	}
	return "accuracy"
}

// value turns summed counts into the metric. For accuracy gold is the
// token count; for the F1 metrics it matches Evaluate's arithmetic.
func (c counts) value(metric string) float64 {
	if metric == "accuracy" {
		return ratio(c.correct, c.gold)
	}
	return f1(ratio(c.correct, c.pred), ratio(c.correct, c.gold))
}

func sentenceCounts(sents []Sentence, s scheme.Scheme) []counts {
	out := make([]counts, len(sents))
	var gc, pc []scheme.Chunk
	var gw, pw []span
	for i, st := range sents {
		switch {
		case s.HasSpans():
			gc = scheme.Chunks(gc[:0], st.Gold, s)
			pc = scheme.Chunks(pc[:0], st.Pred, s)
			out[i] = counts{matchChunks(gc, pc, nil), len(gc), len(pc)}
		case s.IsSegmentation():
			gw = segWords(gw[:0], st.Gold)
			pw = segWords(pw[:0], st.Pred)
			out[i] = counts{matchSpans(gw, pw, nil), len(gw), len(pw)}
		default:
			c := counts{gold: len(st.Gold), pred: len(st.Gold)}
			for t, g := range st.Gold {
				if st.Pred[t] == g {
					c.correct++
				}
			}
			out[i] = c
		}
	}
	return out
}

func checkPaired(a, b []Sentence) error {
	if len(a) != len(b) {
		return fmt.Errorf("eval: compare: %d sentences vs %d", len(a), len(b))
	}
	for i := range a {
		if !slices.Equal(a[i].Gold, b[i].Gold) {
			return fmt.Errorf("eval: compare: sentence %d: gold labels differ", i)
		}
		if len(a[i].Pred) != len(a[i].Gold) || len(b[i].Pred) != len(b[i].Gold) {
			return fmt.Errorf("eval: compare: sentence %d: prediction length differs from gold", i)
		}
	}
	return nil
}

// Compare tests whether system a differs from system b on the same test
// set (identical Gold). The metric is span F1 for span schemes, word F1 for
// segmentation schemes and token accuracy otherwise. The confidence
// interval comes from a paired bootstrap over sentences, the p-value from
// approximate randomization (each sentence's outputs swapped with
// probability 1/2). Both use samples draws from PCG streams seeded by seed,
// so results are reproducible.
func Compare(a, b []Sentence, o Options, samples int, seed uint64) (*Comparison, error) {
	if samples <= 0 {
		return nil, errors.New("eval: compare: samples must be positive")
	}
	if err := checkPaired(a, b); err != nil {
		return nil, err
	}
	metric := metricName(o.Scheme)
	ca, cb := sentenceCounts(a, o.Scheme), sentenceCounts(b, o.Scheme)
	var ta, tb counts
	for i := range ca {
		ta.add(ca[i])
		tb.add(cb[i])
	}
	c := &Comparison{Metric: metric, A: ta.value(metric), B: tb.value(metric), Samples: samples}
	c.Diff = c.A - c.B
	n := len(ca)

	// Distinct streams keep the two procedures independent of each other.
	boot := rand.New(rand.NewPCG(seed, 0x626f6f74))
	diffs := make([]float64, samples)
	for k := range diffs {
		var sa, sb counts
		for range n {
			j := boot.IntN(n)
			sa.add(ca[j])
			sb.add(cb[j])
		}
		diffs[k] = sa.value(metric) - sb.value(metric)
	}
	slices.Sort(diffs)
	c.CILow, c.CIHigh = percentile(diffs, 0.025), percentile(diffs, 0.975)

	perm := rand.New(rand.NewPCG(seed, 0x72616e64))
	// Tolerance so that float noise in equal differences still counts as
	// "at least as extreme"; otherwise identical systems could get p < 1.
	obs := math.Abs(c.Diff) - 1e-12
	extreme := 0
	for range samples {
		var sa, sb counts
		var bits uint64
		for j := range n {
			if j%64 == 0 {
				bits = perm.Uint64()
			}
			if bits&1 == 1 {
				sa.add(cb[j])
				sb.add(ca[j])
			} else {
				sa.add(ca[j])
				sb.add(cb[j])
			}
			bits >>= 1
		}
		if math.Abs(sa.value(metric)-sb.value(metric)) >= obs {
			extreme++
		}
	}
	c.PValue = float64(extreme+1) / float64(samples+1)
	return c, nil
}

// percentile interpolates linearly between the order statistics of sorted.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(lo)
	return sorted[lo]*(1-f) + sorted[lo+1]*f
}

// McNemar counts tokens where exactly one system is right — b01: a wrong
// and b right; b10: a right and b wrong — and returns the two-sided p-value
// of McNemar's chi-square test with continuity correction (1 when the
// systems never disagree). It panics on sentences of unequal length; call
// Compare first to validate the pairing.
func McNemar(a, b []Sentence) (b01, b10 int, p float64) {
	if len(a) != len(b) {
		panic(fmt.Sprintf("eval: mcnemar: %d sentences vs %d", len(a), len(b)))
	}
	for i := range a {
		sa, sb := &a[i], &b[i]
		if len(sa.Gold) != len(sb.Gold) || len(sa.Pred) != len(sa.Gold) || len(sb.Pred) != len(sb.Gold) {
			panic(fmt.Sprintf("eval: mcnemar: sentence %d: lengths differ", i))
		}
		for t := range sa.Gold {
			okA, okB := sa.Pred[t] == sa.Gold[t], sb.Pred[t] == sb.Gold[t]
			switch {
			case !okA && okB:
				b01++
			case okA && !okB:
				b10++
			}
		}
	}
	n := b01 + b10
	if n == 0 {
		return b01, b10, 1
	}
	d := math.Max(math.Abs(float64(b01-b10))-1, 0)
	chi2 := d * d / float64(n)
	// Survival function of chi-square with one degree of freedom.
	return b01, b10, math.Erfc(math.Sqrt(chi2 / 2))
}

// Interval returns the 95% percentile-bootstrap confidence interval of one
// system's main metric (the metric Compare uses), resampling sentences with
// replacement; seeded, so the interval is reproducible.
func Interval(sents []Sentence, o Options, samples int, seed uint64) (lo, hi float64, err error) {
	if samples <= 0 {
		return 0, 0, errors.New("eval: interval: samples must be positive")
	}
	if len(sents) == 0 {
		return 0, 0, errors.New("eval: interval: no sentences")
	}
	metric := metricName(o.Scheme)
	c := sentenceCounts(sents, o.Scheme)
	boot := rand.New(rand.NewPCG(seed, 0x696e7476))
	values := make([]float64, samples)
	n := len(c)
	for k := range values {
		var s counts
		for range n {
			s.add(c[boot.IntN(n)])
		}
		values[k] = s.value(metric)
	}
	slices.Sort(values)
	return percentile(values, 0.025), percentile(values, 0.975), nil
}

// MetricName is the name of the main metric Compare and Interval use for a
// scheme: "f1" for span schemes, "word_f1" for segmentation, "accuracy"
// otherwise.
func MetricName(s scheme.Scheme) string { return metricName(s) }
