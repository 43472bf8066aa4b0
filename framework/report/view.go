package report

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/plural"
	"github.com/trellis-nlp/trellis/framework/rundir"
)

// view is everything the template shows, fully formatted.
type view struct {
	Title       string
	Description string
	Facts       []kv

	MetricName  string
	Summary     []string
	HasPR       bool
	PRKind      string
	ShowAcc     bool
	HasCI       bool
	Rows        []row
	Forest      *chart
	Legend      []legendItem
	Comparisons []cmpRow
	CmpMetric   string
	CmpSamples  int

	DevPanels  []lossPanel
	DevMetric  string
	LossCharts []lossPanel
	CurveNotes []string

	Tunings []tuningView

	TypeBars     *chart
	LabelBars    *chart
	LabelBarsFor string

	Confusion     *chart
	ConfusionFor  string
	ConfusionNote string

	Data       []kv
	Command    string
	Learners   []provLearner
	SpecSource string
}

type kv struct{ K, V string }

type legendItem struct {
	Name, Colour, Dash string
}

type row struct {
	Rank                         int
	Name, Type, Colour           string
	Best                         bool
	Main, CI, P, R, Acc, IV, OOV string
	Sent                         string
	Train, Speed, Size           string
}

type cmpRow struct {
	A, B, Better         string
	Diff, CI, P, McNemar string
	McNemarCounts        string
	Sig, McSig           bool
	Plot                 *chart
}

type lossPanel struct {
	Name  string
	Note  string
	Chart *chart
}

type provLearner struct {
	Name, Type, Config, Info string
}

func metricTitle(m string) string {
	switch m {
	case "accuracy":
		return "Accuracy"
	case "f1":
		return "Span F1"
	case "word_f1":
		return "Word F1"
	case "":
		return "Score"
	}
	return m
}

func pct(v float64) string { return strconv.FormatFloat(v*100, 'f', 2, 64) }

func pval(p float64) string {
	switch {
	case math.IsNaN(p):
		return "–"
	case p < 1e-4:
		return strconv.FormatFloat(p, 'e', 1, 64)
	default:
		return strconv.FormatFloat(p, 'f', 4, 64)
	}
}

// arP formats an approximate-randomization p-value, which cannot go below
// 1/(samples+1).
func arP(p float64, samples int) string {
	if samples > 0 && p <= 1/float64(samples+1)+1e-12 {
		return "≤ " + strconv.FormatFloat(1/float64(samples+1), 'g', 2, 64)
	}
	return pval(p)
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func bytesize(n int64) string {
	switch {
	case n <= 0:
		return "–"
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

func seconds(s float64) string {
	switch {
	case s < 10:
		return strconv.FormatFloat(s, 'f', 2, 64)
	case s < 1000:
		return strconv.FormatFloat(s, 'f', 1, 64)
	}
	return thousands(int64(math.Round(s)))
}

// sortedJSON renders a map with sorted keys (encoding/json sorts them).
// rawObject decodes a learner's recorded configuration for display.
func rawObject(raw []byte) map[string]any {
	var m map[string]any
	json.Unmarshal(raw, &m)
	return m
}

func sortedJSON(m map[string]any) string {
	if len(m) == 0 {
		return "{}"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // html/template escapes the page
	if err := enc.Encode(m); err != nil {
		return fmt.Sprint(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// shellQuote renders a command line for copying into a POSIX shell.
func shellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

func buildView(r *Run) *view {
	m := r.Manifest
	best := r.Learners[0]
	v := &view{
		Title:       m.Experiment,
		Description: m.Description,
		MetricName:  metricTitle(best.MainMetric),
	}
	if v.Title == "" {
		v.Title = "trellis run"
	}
	v.Facts = buildFacts(r)

	colours := map[string]int{}
	for i, l := range r.Learners {
		colours[l.Name] = i
		v.Legend = append(v.Legend, legendItem{Name: l.Name, Colour: colour(i), Dash: dash(i)})
	}
	v.addRows(r)
	v.Forest = forestPlot(r.Learners)
	v.Summary = summary(r)
	v.addComparisons(r.Comparisons)

	// Learning curves.
	v.DevPanels, v.DevMetric, v.LossCharts, v.CurveNotes = curves(r.Learners, colours, curveUnits(r))
	v.Tunings = tunings(r.Learners)

	// Per-label / per-type F1.
	v.TypeBars = f1Bars(r.Learners, func(l *Learner) map[string]*eval.PRF { return l.PerType })
	v.LabelBars = f1Bars(r.Learners, func(l *Learner) map[string]*eval.PRF { return l.PerLabel })

	// Confusion matrix of the best learner.
	v.ConfusionFor = best.Name
	v.Confusion, v.ConfusionNote = confusion(best)
	v.addProvenance(r)
	return v
}

// addRows fills the comparison table, a row per learner, best first.
func (v *view) addRows(r *Run) {
	for _, l := range r.Learners {
		if l.Words != nil {
			v.HasPR, v.PRKind = true, "word"
		} else if l.Precision != nil && l.Recall != nil {
			v.HasPR, v.PRKind = true, "span"
		}
		if l.HasCI {
			v.HasCI = true
		}
	}
	v.ShowAcc = r.Learners[0].MainMetric != "accuracy"
	for i, l := range r.Learners {
		rw := row{
			Rank: i + 1, Name: l.Name, Type: l.Learner, Colour: colour(i), Best: i == 0,
			Main: pct(l.MainValue), CI: "–", P: "–", R: "–",
			Acc: pct(l.Accuracy), IV: "–", OOV: "–", Sent: pct(l.SentenceAccuracy),
			Train: seconds(l.TrainSeconds), Speed: thousands(int64(math.Round(l.TagTokensPerSecond))),
			Size: bytesize(l.ModelBytes),
		}
		if rw.Type == "" {
			rw.Type = r.Manifest.Learners[l.Name].Type
		}
		if l.HasCI {
			rw.CI = "[" + pct(l.CILow) + ", " + pct(l.CIHigh) + "]"
		}
		if l.Words != nil {
			rw.P, rw.R = pct(l.Words.Precision), pct(l.Words.Recall)
		} else if l.Precision != nil && l.Recall != nil {
			rw.P, rw.R = pct(*l.Precision), pct(*l.Recall)
		}
		if l.IVTokens > 0 {
			rw.IV = pct(l.IVAccuracy)
		}
		if l.OOVTokens > 0 {
			rw.OOV = pct(l.OOVAccuracy)
		}
		v.Rows = append(v.Rows, rw)
	}
}

// addComparisons fills the pairwise significance table and its plots,
// drawn on one shared scale.
func (v *view) addComparisons(cmps []rundir.Comparison) {
	for _, c := range cmps {
		if v.CmpMetric == "" {
			v.CmpMetric, v.CmpSamples = metricTitle(c.Metric), c.Samples
		}
		cr := cmpRow{
			A: c.A, B: c.B,
			Diff: signedPct(c.Diff), CI: "[" + signedPct(c.CILow) + ", " + signedPct(c.CIHigh) + "]",
			P: arP(c.PValue, c.Samples), McNemar: "–",
			Sig:           c.PValue < 0.05,
			McNemarCounts: fmt.Sprintf("%s / %s", thousands(int64(c.McNemarARightBWrong)), thousands(int64(c.McNemarAWrongBRight))),
		}
		cr.McNemar = pval(c.McNemarP)
		cr.McSig = c.McNemarP < 0.05
		switch {
		case c.Diff > 0:
			cr.Better = c.A
		case c.Diff < 0:
			cr.Better = c.B
		}
		v.Comparisons = append(v.Comparisons, cr)
	}
	if len(cmps) == 0 {
		return
	}
	lo, hi := 0.0, 0.0
	for _, c := range cmps {
		lo = math.Min(lo, math.Min(c.CILow, c.Diff))
		hi = math.Max(hi, math.Max(c.CIHigh, c.Diff))
	}
	for i, c := range cmps {
		v.Comparisons[i].Plot = diffPlot(c, lo, hi)
	}
}

// addProvenance fills the data checksums, the command line, each
// learner's settings and the spec source.
func (v *view) addProvenance(r *Run) {
	m := r.Manifest
	hashNames := make([]string, 0, len(m.DataSHA256))
	for k := range m.DataSHA256 {
		hashNames = append(hashNames, k)
	}
	sort.Strings(hashNames)
	for _, k := range hashNames {
		v.Data = append(v.Data, kv{k, m.DataSHA256[k]})
	}
	v.Command = shellQuote(m.Command)
	for _, l := range r.Learners {
		ml := m.Learners[l.Name]
		t := ml.Type
		if t == "" {
			t = l.Learner
		}
		v.Learners = append(v.Learners, provLearner{Name: l.Name, Type: t, Config: sortedJSON(rawObject(ml.Config)), Info: sortedJSON(l.Info)})
	}
	v.SpecSource = m.SpecSource
}

func signedPct(v float64) string {
	s := strconv.FormatFloat(v*100, 'f', 2, 64)
	if v > 0 || (v == 0 && !strings.HasPrefix(s, "-")) {
		return "+" + s
	}
	if s == "-0.00" {
		return "+0.00"
	}
	return s
}

func buildFacts(r *Run) []kv {
	m := r.Manifest
	var f []kv
	add := func(k, v string) {
		if v != "" {
			f = append(f, kv{k, v})
		}
	}
	add("Spec", m.SpecFile)
	if m.SpecSHA256 != "" {
		add("Spec SHA-256", m.SpecSHA256)
	}
	add("Seed", strconv.FormatUint(m.Seed, 10))
	if m.Threads > 0 {
		add("Threads", strconv.Itoa(m.Threads))
	}
	version := m.TrellisVersion
	if m.VCSRevision != "" {
		version += " (" + m.VCSRevision + ")"
	}
	add("trellis", version)
	add("Go", strings.TrimSpace(m.GoVersion+" "+m.OSArch))
	add("Label scheme", m.Scheme.String())
	var corpora []string
	role := func(role, name string) {
		switch name {
		case "":
		case role:
			corpora = append(corpora, name)
		default:
			corpora = append(corpora, role+": "+name)
		}
	}
	role("train", m.TrainCorpus)
	role("dev", m.DevCorpus)
	role("test", m.TestCorpus)
	add("Corpora", strings.Join(corpora, " · "))
	l := r.Learners[0]
	if l.Tokens > 0 {
		add("Test set", fmt.Sprintf("%s sentences, %s tokens (%s OOV)", thousands(int64(l.Sentences)), thousands(int64(l.Tokens)), thousands(int64(l.OOVTokens))))
	}
	nl := len(m.Labels)
	if nl == 0 {
		nl = len(l.Labels)
	}
	if nl > 0 {
		add("Labels", strconv.Itoa(nl))
	}
	if m.Attributes > 0 {
		add("Feature attributes", thousands(int64(m.Attributes)))
	}
	return f
}

// summary is the report's plain-language headline.
func summary(r *Run) []string {
	best := r.Learners[0]
	metric := metricTitle(best.MainMetric)
	if metric == "Accuracy" || metric == "Span F1" || metric == "Word F1" {
		metric = strings.ToLower(metric[:1]) + metric[1:]
	}
	head := fmt.Sprintf("Best: %s with %s %s%%", best.Name, metric, pct(best.MainValue))
	if best.HasCI {
		head += fmt.Sprintf(" (95%% CI %s–%s)", pct(best.CILow), pct(best.CIHigh))
	}
	head += "."
	out := []string{head}
	if len(r.Learners) < 2 {
		return out
	}
	var sig, notSig []string
	for _, l := range r.Learners[1:] {
		for _, c := range r.Comparisons {
			if !(c.A == best.Name && c.B == l.Name || c.B == best.Name && c.A == l.Name) {
				continue
			}
			d := c.Diff
			if c.B == best.Name {
				d = -d
			}
			s := fmt.Sprintf("%s (%s points, p %s)", l.Name, signedPct(d), strings.TrimPrefix(pEq(c.PValue, c.Samples), " "))
			if c.PValue < 0.05 {
				sig = append(sig, s)
			} else {
				notSig = append(notSig, s)
			}
			break
		}
	}
	if len(sig) > 0 {
		out = append(out, "Significantly better (p < 0.05) than "+strings.Join(sig, ", ")+".")
	}
	if len(notSig) > 0 {
		out = append(out, "Not significantly different from "+strings.Join(notSig, ", ")+".")
	}
	return out
}

func pEq(p float64, samples int) string {
	s := arP(p, samples)
	if strings.HasPrefix(s, "≤") {
		return s
	}
	return "= " + s
}

// forestPlot draws each learner's main metric with its 95% interval on a
// shared axis.
func forestPlot(ls []*Learner) *chart {
	const left, right, rowH, top = 150.0, 210.0, 30.0, 16.0
	w := 1100.0
	h := top + rowH*float64(len(ls)) + 44
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range ls {
		lo, hi = math.Min(lo, l.MainValue), math.Max(hi, l.MainValue)
		if l.HasCI {
			lo, hi = math.Min(lo, l.CILow), math.Max(hi, l.CIHigh)
		}
	}
	pad := (hi - lo) * 0.05
	x := linearAxis((lo-pad)*100, (hi+pad)*100, 8, left, w-right)
	bottom := top + rowH*float64(len(ls))
	c := &chart{W: w, H: h, Label: "Main metric with 95% confidence interval per learner"}
	c.frame(x, axis{P0: bottom, P1: top, Lo: 0, Hi: 1}, "", "")
	c.text((left+w-right)/2, bottom+34, "% (point = test score, bar = 95% bootstrap CI)", "middle", "axis")
	for i, l := range ls {
		cy := top + rowH*(float64(i)+0.5)
		col := colour(i)
		c.Texts = append(c.Texts, svgText{X: left - 10, Y: cy + 4, Text: l.Name, Anchor: "end", Class: "lbl", Bold: i == 0})
		label := pct(l.MainValue)
		if l.HasCI {
			x0, x1 := x.px(l.CILow*100), x.px(l.CIHigh*100)
			c.Lines = append(c.Lines,
				svgLine{X1: x0, Y1: cy, X2: x1, Y2: cy, Stroke: col, Width: 3},
				svgLine{X1: x0, Y1: cy - 6, X2: x0, Y2: cy + 6, Stroke: col, Width: 2},
				svgLine{X1: x1, Y1: cy - 6, X2: x1, Y2: cy + 6, Stroke: col, Width: 2})
			label += "  [" + pct(l.CILow) + ", " + pct(l.CIHigh) + "]"
		}
		c.Circles = append(c.Circles, svgCircle{X: x.px(l.MainValue * 100), Y: cy, R: 6, Fill: col, Stroke: "#fff", Title: l.Name + ": " + label})
		c.Texts = append(c.Texts, svgText{X: w - right + 12, Y: cy + 4, Text: label, Anchor: "start", Class: "val", Bold: i == 0})
	}
	return c
}

// diffPlot is a small inline interval of A − B against zero.
func diffPlot(c rundir.Comparison, lo, hi float64) *chart {
	const w, h = 120.0, 22.0
	pad := (hi - lo) * 0.06
	if pad == 0 {
		pad = 0.01
	}
	x := axis{Lo: lo - pad, Hi: hi + pad, P0: 4, P1: w - 4}
	ch := &chart{W: w, H: h, Label: "difference with 95% CI; vertical line is zero"}
	z := x.px(0)
	ch.Grid = append(ch.Grid, svgLine{X1: z, Y1: 2, X2: z, Y2: h - 2, Stroke: "#888", Width: 1, Dash: "2 2"})
	col := "#777"
	if c.PValue < 0.05 {
		col = "#0072B2"
	}
	ch.Lines = append(ch.Lines, svgLine{X1: x.px(c.CILow), Y1: h / 2, X2: x.px(c.CIHigh), Y2: h / 2, Stroke: col, Width: 3})
	ch.Circles = append(ch.Circles, svgCircle{X: x.px(c.Diff), Y: h / 2, R: 4, Fill: col, Stroke: "#fff"})
	return ch
}

// curveUnits names what one step of each learner's learning curve is
// (curves in different units get their own x-axes): the unit its points
// carry or, in a run directory written before points carried one, the
// unit its learner's type and settings implied (legacyUnit).
func curveUnits(r *Run) map[string]string {
	units := map[string]string{}
	for _, l := range r.Learners {
		if u := recordedUnit(l.Curve); u != "" {
			units[l.Name] = string(u)
		} else if ml, ok := r.Manifest.Learners[l.Name]; ok {
			units[l.Name] = string(legacyUnit(ml))
		}
	}
	return units
}

// recordedUnit is the unit of curve's points, "" if none carries one.
func recordedUnit(curve []learn.Point) learn.StepUnit {
	for _, p := range slices.Backward(curve) {
		if p.Unit != "" {
			return p.Unit
		}
	}
	return ""
}

// legacyUnit is the unit of learner ml's curve as the report named it
// before points carried their unit: by learner type and settings, "" for
// the types it did not know.
func legacyUnit(ml rundir.ManifestLearner) learn.StepUnit {
	cfg := rawObject(ml.Config)
	switch ml.Type {
	case "perceptron":
		return learn.Epoch
	case "crf":
		switch c1, _ := cfg["c1"].(float64); {
		case cfg["algorithm"] == "sgd":
			return learn.SGDEpoch
		case c1 > 0:
			return learn.OWLQNIteration
		default:
			return learn.LBFGSIteration
		}
	}
	return ""
}

// curveSeries is one learner's learning curve.
type curveSeries struct {
	idx            int
	name, unit     string
	devXs, devYs   []float64
	lossXs, lossYs []float64
}

// curves draws one dev-score panel and one loss panel per learner, each
// on the learner's own x-axis (units[name]: epochs are not iterations);
// the dev panels share their y-axis, so their heights compare, while
// losses are on learner-specific scales (error rate, objective value, ...).
func curves(ls []*Learner, colours map[string]int, units map[string]string) ([]lossPanel, string, []lossPanel, []string) {
	var notes, noCurve, withoutDev []string
	var all []curveSeries
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, l := range ls {
		if len(l.Curve) == 0 {
			noCurve = append(noCurve, l.Name)
			continue
		}
		cs := curveSeries{idx: colours[l.Name], name: l.Name, unit: units[l.Name]}
		if cs.unit == "" {
			cs.unit = "step"
		}
		for _, p := range l.Curve {
			if p.DevScore != 0 {
				cs.devXs = append(cs.devXs, float64(p.Step))
				cs.devYs = append(cs.devYs, p.DevScore*100)
				ylo, yhi = math.Min(ylo, p.DevScore*100), math.Max(yhi, p.DevScore*100)
			}
			if p.Loss != 0 {
				cs.lossXs = append(cs.lossXs, float64(p.Step))
				cs.lossYs = append(cs.lossYs, p.Loss)
			}
		}
		if len(cs.devXs) == 0 {
			withoutDev = append(withoutDev, l.Name)
		}
		all = append(all, cs)
	}
	var dev, loss []lossPanel
	for _, cs := range all {
		if len(cs.devXs) > 0 {
			last := cs.devYs[len(cs.devYs)-1]
			dev = append(dev, lossPanel{Name: cs.name, Chart: devChart(cs, ylo, yhi),
				Note: fmt.Sprintf("%s, final %s%%", plural.Count(len(cs.devXs), cs.unit), strconv.FormatFloat(last, 'f', 2, 64))})
		}
		if len(cs.lossXs) > 0 {
			loss = append(loss, lossPanel{Name: cs.name, Chart: lossChart(cs.name, cs.idx, cs.unit, cs.lossXs, cs.lossYs),
				Note: fmt.Sprintf("%s, final %s", plural.Count(len(cs.lossXs), cs.unit), strconv.FormatFloat(cs.lossYs[len(cs.lossYs)-1], 'g', 4, 64))})
		}
	}
	if len(noCurve) > 0 && len(noCurve) < len(ls) {
		notes = append(notes, "No learning curve recorded for "+strings.Join(noCurve, ", ")+".")
	}
	if len(withoutDev) > 0 && len(dev) > 0 {
		notes = append(notes, "No dev scores recorded for "+strings.Join(withoutDev, ", ")+" (only the training loss is shown).")
	}
	metric := ""
	if len(ls) > 0 {
		metric = metricTitle(ls[0].MainMetric)
	}
	return dev, metric, loss, notes
}

// devChart draws one learner's dev score per step, the y-axis from ylo
// to yhi (shared by every learner's panel).
func devChart(cs curveSeries, ylo, yhi float64) *chart {
	const w, h, left, right, top, bottom = 350.0, 230.0, 58.0, 14.0, 12.0, 44.0
	xs, ys := cs.devXs, cs.devYs
	xa := linearAxis(math.Min(xs[0], 1), xs[len(xs)-1], 5, left, w-right).tight(math.Min(xs[0], 1), xs[len(xs)-1])
	ya := linearAxis(ylo, yhi+(yhi-ylo)*0.06, 5, h-bottom, top)
	c := &chart{W: w, H: h, Label: "Dev score of " + cs.name + " per " + cs.unit}
	c.frame(xa, ya, cs.unit, "dev score (%)")
	px, py := make([]float64, len(xs)), make([]float64, len(xs))
	for i := range xs {
		px[i], py[i] = xa.px(xs[i]), ya.px(ys[i])
	}
	col := colour(cs.idx)
	c.Paths = append(c.Paths, svgPath{D: pathD(px, py), Stroke: col, Width: 2.5, Dash: dash(cs.idx), Title: cs.name})
	if len(xs) <= 40 {
		for i := range px {
			c.Circles = append(c.Circles, svgCircle{X: px[i], Y: py[i], R: 3, Fill: col, Stroke: "#fff",
				Title: fmt.Sprintf("%s %s %d: %s%%", cs.name, cs.unit, int(xs[i]), strconv.FormatFloat(ys[i], 'f', 2, 64))})
		}
	}
	return c
}

func lossChart(name string, idx int, unit string, xs, ys []float64) *chart {
	const w, h, left, right, top, bottom = 350.0, 230.0, 58.0, 14.0, 12.0, 44.0
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range xs {
		xlo, xhi = math.Min(xlo, xs[i]), math.Max(xhi, xs[i])
		ylo, yhi = math.Min(ylo, ys[i]), math.Max(yhi, ys[i])
	}
	xa := linearAxis(math.Min(xlo, 1), xhi, 5, left, w-right).tight(math.Min(xlo, 1), xhi)
	var ya axis
	title := "loss"
	if ylo > 0 && yhi/ylo >= 8 {
		ya = logAxis(ylo, yhi, h-bottom, top)
		title = "loss (log scale)"
	} else {
		ya = linearAxis(math.Min(ylo, 0), yhi, 5, h-bottom, top)
		for i, t := range ya.Ticks {
			ya.TickLabels[i] = shortNum(t)
		}
	}
	c := &chart{W: w, H: h, Label: "Training loss of " + name}
	c.frame(xa, ya, unit, title)
	px, py := make([]float64, len(xs)), make([]float64, len(xs))
	for i := range xs {
		px[i], py[i] = xa.px(xs[i]), ya.px(ys[i])
	}
	col := colour(idx)
	c.Paths = append(c.Paths, svgPath{D: pathD(px, py), Stroke: col, Width: 2, Dash: dash(idx), Title: name})
	if len(xs) <= 40 {
		for i := range px {
			c.Circles = append(c.Circles, svgCircle{X: px[i], Y: py[i], R: 2.5, Fill: col,
				Title: fmt.Sprintf("%s %s %d: %s", name, unit, int(xs[i]), strconv.FormatFloat(ys[i], 'g', 5, 64))})
		}
	}
	return c
}

// f1Bars draws grouped horizontal F1 bars: one group per label (most
// frequent gold label first), one bar per learner.
func f1Bars(ls []*Learner, get func(*Learner) map[string]*eval.PRF) *chart {
	gold := map[string]int{}
	for _, l := range ls {
		for k, p := range get(l) {
			if p.Gold > gold[k] {
				gold[k] = p.Gold
			} else if _, ok := gold[k]; !ok {
				gold[k] = p.Gold
			}
		}
	}
	if len(gold) == 0 {
		return nil
	}
	labels := sortByGold(gold)
	n := len(ls)
	barH := 11.0
	switch {
	case n > 6:
		barH = 6
	case n > 4:
		barH = 8
	}
	if bars := float64(len(labels) * n); bars > 240 {
		barH = math.Max(4, math.Min(barH, 1800/bars))
	}
	const left, right, top, gap = 170.0, 70.0, 28.0, 9.0
	w := 1100.0
	groupH := math.Max(barH*float64(n)+gap, 32)
	inset := (groupH - gap - barH*float64(n)) / 2
	h := top + groupH*float64(len(labels)) + 30
	xa := linearAxis(0, 100, 11, left, w-right)
	c := &chart{W: w, H: h, Label: "F1 per label and learner"}
	bottom := top + groupH*float64(len(labels))
	for i, t := range xa.Ticks {
		px := xa.px(t)
		c.Grid = append(c.Grid, svgLine{X1: px, Y1: top - 4, X2: px, Y2: bottom, Stroke: "#e3e3e3", Width: 1})
		c.text(px, top-10, xa.TickLabels[i], "middle", "tick")
		c.text(px, bottom+16, xa.TickLabels[i], "middle", "tick")
	}
	c.Lines = append(c.Lines, svgLine{X1: left, Y1: top - 4, X2: left, Y2: bottom, Stroke: "#555", Width: 1})
	for gi, lab := range labels {
		gy := top + groupH*float64(gi)
		if gi%2 == 1 {
			c.Bands = append(c.Bands, svgRect{X: 4, Y: gy - gap/2, W: w - 8, H: groupH, Fill: "#f4f5f8"})
		}
		mid := gy + (groupH-gap)/2
		c.Texts = append(c.Texts, svgText{X: left - 10, Y: mid - 1, Text: lab, Anchor: "end", Class: "lbl", Bold: true})
		c.Texts = append(c.Texts, svgText{X: left - 10, Y: mid + 11, Text: "n=" + thousands(int64(gold[lab])), Anchor: "end", Class: "tick"})
		for li, l := range ls {
			p, ok := get(l)[lab]
			if !ok {
				p = &eval.PRF{}
			}
			y := gy + inset + barH*float64(li)
			title := fmt.Sprintf("%s · %s: F1 %s (P %s, R %s; gold %d, pred %d, correct %d)", lab, l.Name, pct(p.F1), pct(p.Precision), pct(p.Recall), p.Gold, p.Pred, p.Correct)
			if !ok {
				title = lab + " · " + l.Name + ": not reported"
			}
			bw := xa.px(p.F1*100) - left
			c.Rects = append(c.Rects, svgRect{X: left, Y: y + 0.5, W: math.Max(bw, 0.5), H: barH - 1, Fill: colour(li), Title: title})
			if barH < 7 {
				continue // too thin to label; the tooltip has the value
			}
			txt := pct(p.F1)
			if !ok {
				txt = "–"
			}
			c.Texts = append(c.Texts, svgText{X: left + bw + 4, Y: y + barH - 2, Text: txt, Anchor: "start", Class: "bv", Size: math.Min(barH, 11)})
		}
	}
	return c
}

func sortByGold(gold map[string]int) []string {
	labels := make([]string, 0, len(gold))
	for k := range gold {
		labels = append(labels, k)
	}
	sort.Slice(labels, func(i, j int) bool {
		if gold[labels[i]] != gold[labels[j]] {
			return gold[labels[i]] > gold[labels[j]]
		}
		return labels[i] < labels[j]
	})
	return labels
}

// confusion draws the row-normalized confusion matrix as a heatmap.
func confusion(l *Learner) (*chart, string) {
	n := len(l.Labels)
	if n == 0 || len(l.Confusion) != n {
		return nil, ""
	}
	gold := map[string]int{}
	idx := map[string]int{}
	rowSum := make([]int, n)
	colSum := make([]int, n)
	for i, lab := range l.Labels {
		idx[lab] = i
		if len(l.Confusion[i]) != n {
			return nil, ""
		}
		for j, v := range l.Confusion[i] {
			rowSum[i] += v
			colSum[j] += v
		}
		gold[lab] = rowSum[i]
	}
	order := sortByGold(gold)
	cell := math.Floor(820 / float64(n))
	cell = math.Max(13, math.Min(38, cell))
	showCounts := n <= 25
	maxLen := 0
	for _, lab := range l.Labels {
		maxLen = max(maxLen, len([]rune(lab)))
	}
	labW := math.Min(160, 16+float64(maxLen)*7)
	left := labW + 22
	top := labW*0.75 + 26
	fs := math.Min(11, cell*0.42)
	gridW := cell * float64(n)
	w := left + gridW + 70 + 190
	h := top + gridW + 40
	c := &chart{W: w, H: h, Label: "Confusion matrix of " + l.Name + " (rows gold, columns predicted)"}
	for k, lab := range order {
		y := top + cell*float64(k)
		x := left + cell*float64(k)
		c.Texts = append(c.Texts, svgText{X: left - 6, Y: y + cell/2 + 4, Text: lab, Anchor: "end", Class: "lbl", Size: math.Min(12, cell*0.7)})
		c.Texts = append(c.Texts, svgText{X: x + cell/2 + 4, Y: top - 6, Text: lab, Anchor: "start", Class: "lbl", Size: math.Min(12, cell*0.7), Rotate: -50})
	}
	c.Texts = append(c.Texts,
		svgText{X: 12, Y: top + gridW/2, Text: "gold label", Anchor: "middle", Class: "axis", Rotate: -90},
		svgText{X: left + gridW/2, Y: 14, Text: "predicted label", Anchor: "middle", Class: "axis"},
		svgText{X: left + gridW + 8, Y: top - 6, Text: "recall", Anchor: "start", Class: "tick"})
	for a, gl := range order {
		i := idx[gl]
		y := top + cell*float64(a)
		for b, pl := range order {
			j := idx[pl]
			x := left + cell*float64(b)
			cnt := l.Confusion[i][j]
			rate := 0.0
			if rowSum[i] > 0 {
				rate = float64(cnt) / float64(rowSum[i])
			}
			t := math.Sqrt(rate)
			fill := heat(t)
			if cnt == 0 {
				fill = "#ffffff"
			}
			rc := svgRect{X: x, Y: y, W: cell, H: cell, Fill: fill, Stroke: "#eef0f3", Width: 0.5,
				Title: fmt.Sprintf("gold %s → predicted %s: %d of %d (%s%%)", gl, pl, cnt, rowSum[i], strconv.FormatFloat(rate*100, 'f', 1, 64))}
			c.Rects = append(c.Rects, rc)
			if showCounts && cnt > 0 {
				col := "#1a1a1a"
				if t > 0.62 {
					col = "#ffffff"
				}
				c.Texts = append(c.Texts, svgText{X: x + cell/2, Y: y + cell/2 + fs*0.36, Text: strconv.Itoa(cnt), Anchor: "middle", Class: "cnt", Fill: col, Size: fs})
			}
		}
		// Row recall at the right.
		rec := "–"
		if rowSum[i] > 0 {
			rec = strconv.FormatFloat(float64(l.Confusion[i][i])/float64(rowSum[i])*100, 'f', 1, 64)
		}
		c.Texts = append(c.Texts, svgText{X: left + gridW + 8, Y: y + cell/2 + 4, Text: rec, Anchor: "start", Class: "tick", Size: math.Min(11, cell*0.7)})
	}
	// Outline the diagonal so it stays visible whatever the colours.
	for k := range order {
		c.Lines = append(c.Lines, diagBox(left+cell*float64(k), top+cell*float64(k), cell)...)
	}
	heatLegend(c, left+gridW+70, top, math.Min(gridW, 240))
	note := fmt.Sprintf("%s; colour is the share of each gold row (square-root scale, so rare confusions stay visible)", plural.Count(n, "label"))
	if showCounts {
		note += "; cells show counts"
	} else {
		note += "; hover a cell for its count"
	}
	note += "; the right-hand column is per-label recall."
	return c, note
}

// heatLegend draws the confusion matrix's colour legend (square-root
// scale of the row-normalized rate) at (lx, ly), lh high.
func heatLegend(c *chart, lx, ly, lh float64) {
	c.text(lx, ly-6, "share of gold row", "start", "tick")
	stops := []float64{0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 1}
	for k := 0; k < 40; k++ {
		t0 := float64(k) / 40
		c.Rects = append(c.Rects, svgRect{X: lx, Y: ly + lh*t0, W: 16, H: lh/40 + 0.6, Fill: heat(t0 + 1.0/80)})
	}
	c.Rects = append(c.Rects, svgRect{X: lx, Y: ly, W: 16, H: lh, Fill: "none", Stroke: "#999", Width: 0.5})
	for _, s := range stops {
		py := ly + lh*math.Sqrt(s)
		c.Lines = append(c.Lines, svgLine{X1: lx + 16, Y1: py, X2: lx + 21, Y2: py, Stroke: "#555", Width: 1})
		c.text(lx+24, py+4, strconv.FormatFloat(s*100, 'f', -1, 64)+"%", "start", "tick")
	}
	c.Rects = append(c.Rects, svgRect{X: lx, Y: ly + lh + 18, W: 16, H: 16, Fill: "none", Stroke: "#000", Width: 2})
	c.text(lx+24, ly+lh+30, "diagonal (correct)", "start", "tick")
}

func diagBox(x, y, s float64) []svgLine {
	const col = "#000"
	wd := 1.5
	if s < 20 {
		wd = 1
	}
	return []svgLine{
		{X1: x, Y1: y, X2: x + s, Y2: y, Stroke: col, Width: wd},
		{X1: x + s, Y1: y, X2: x + s, Y2: y + s, Stroke: col, Width: wd},
		{X1: x + s, Y1: y + s, X2: x, Y2: y + s, Stroke: col, Width: wd},
		{X1: x, Y1: y + s, X2: x, Y2: y, Stroke: col, Width: wd},
	}
}
