// This file holds the tuning section, which both reports show: report.md
// as a Markdown table (the run writes it beside its other sections) and
// report.html as an HTML one. Both render one tuningView per learner,
// built from the loaded run.

package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/trellis-nlp/trellis/framework/rundir"
)

// tuningView is one learner's tuning search: a row per candidate, a
// column per setting (sorted by name).
type tuningView struct {
	// Learner is the learner's name and How the HTML's note on the search.
	Learner, How string
	Settings     []string
	Rows         []tuningRow
	rec          *rundir.Tuning
}

// tuningRow is one candidate, its numbers formatted as both reports show
// them; the training time is formatted by each.
type tuningRow struct {
	Values       []string
	Score, Folds string
	TrainSeconds float64
	Picked       bool
}

// Seconds is the training time as the HTML table shows it.
func (r tuningRow) Seconds() string { return seconds(r.TrainSeconds) }

// newTuningView builds learner name's view of search t, nil for a search
// without candidates.
func newTuningView(name string, t *rundir.Tuning) *tuningView {
	if t == nil || len(t.Candidates) == 0 {
		return nil
	}
	tv := &tuningView{Learner: name, rec: t, How: fmt.Sprintf("%s search, %d candidates, %s on the dev corpus %q; the test corpus is not used",
		t.Method, len(t.Candidates), metricTitle(t.Metric), t.Corpus)}
	if t.By == "cv" {
		tv.How = fmt.Sprintf("%s search, %d candidates, mean %s over %d-fold cross-validation on the train corpus %q; the test corpus is not used",
			t.Method, len(t.Candidates), metricTitle(t.Metric), t.Folds, t.Corpus)
	}
	for n := range t.Candidates[0].Settings {
		tv.Settings = append(tv.Settings, n)
	}
	sort.Strings(tv.Settings)
	for i, c := range t.Candidates {
		r := tuningRow{Score: pct(c.Score), TrainSeconds: c.TrainSeconds, Picked: i == t.Pick}
		for _, n := range tv.Settings {
			r.Values = append(r.Values, strconv.FormatFloat(c.Settings[n], 'g', -1, 64))
		}
		folds := make([]string, len(c.FoldScores))
		for k, f := range c.FoldScores {
			folds[k] = pct(f)
		}
		r.Folds = strings.Join(folds, " ")
		tv.Rows = append(tv.Rows, r)
	}
	return tv
}

// tunings lists the learners' tuning searches, in the learners' order.
func tunings(ls []*Learner) []tuningView {
	var out []tuningView
	for _, l := range ls {
		if tv := newTuningView(l.Name, l.Tuning); tv != nil {
			out = append(out, *tv)
		}
	}
	return out
}

// TuningMarkdown renders the tuning searches of r's learners as report.md's
// sections, one per tuned learner of order (the run's order, which the run
// directory does not record), each after a blank line: every candidate
// with its score, the pick marked.
func TuningMarkdown(r *Run, order []string) string {
	byName := map[string]*Learner{}
	for _, l := range r.Learners {
		byName[l.Name] = l
	}
	var b strings.Builder
	for _, name := range order {
		l := byName[name]
		if l == nil {
			continue
		}
		if tv := newTuningView(name, l.Tuning); tv != nil {
			b.WriteString("\n")
			tv.writeMarkdown(&b)
		}
	}
	return b.String()
}

// writeMarkdown writes the section of one search.
func (tv *tuningView) writeMarkdown(b *strings.Builder) {
	t := tv.rec
	how := fmt.Sprintf("on the dev corpus %q", t.Corpus)
	if t.By == "cv" {
		how = fmt.Sprintf("by %d-fold cross-validation on the train corpus %q", t.Folds, t.Corpus)
	}
	fmt.Fprintf(b, "## Tuning %s\n\n%s search, %d candidates scored %s (%s; the test corpus is not used).\n\n",
		t.Learner, t.Method, len(tv.Rows), how, t.Metric)
	b.WriteString("| " + strings.Join(tv.Settings, " | ") + " | score | folds | train s | |\n|")
	b.WriteString(strings.Repeat("---|", len(tv.Settings)+4) + "\n")
	for _, r := range tv.Rows {
		for _, v := range r.Values {
			fmt.Fprintf(b, "| %s ", v)
		}
		pick := ""
		if r.Picked {
			pick = "**picked**"
		}
		fmt.Fprintf(b, "| %s | %s | %.1f | %s |\n", r.Score, r.Folds, r.TrainSeconds, pick)
	}
}
