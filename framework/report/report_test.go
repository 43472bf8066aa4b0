package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/rundir"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.html")

func render(t *testing.T, dir string) []byte {
	t.Helper()
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	for _, name := range []string{"quickstart", "span", "seg"} {
		t.Run(name, func(t *testing.T) {
			got := render(t, filepath.Join("testdata", name))
			golden := filepath.Join("testdata", name+".golden.html")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the rendered report; run go test ./framework/report -update and review the diff", golden)
			}
		})
	}
}

// TestSelfContained checks that the page loads nothing: no scripts, no
// remote URLs, no src/href attributes at all, no CSS url() or @import.
func TestSelfContained(t *testing.T) {
	for _, name := range []string{"quickstart", "span", "seg"} {
		html := strings.ToLower(string(render(t, filepath.Join("testdata", name))))
		for _, bad := range []string{"http://", "https://", "<script", "src=", "href=", "url(", "@import", "<img", "<link", "<iframe", "<object", "<embed", "javascript:", " on"} {
			if bad == " on" {
				if m := regexp.MustCompile(`<[^>]*\son[a-z]+=`).FindString(html); m != "" {
					t.Errorf("%s: event handler attribute: %q", name, m)
				}
				continue
			}
			if i := strings.Index(html, bad); i >= 0 {
				t.Errorf("%s: report contains %q near %q", name, bad, html[max(0, i-60):min(len(html), i+60)])
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, name := range []string{"quickstart", "span", "seg"} {
		a := render(t, filepath.Join("testdata", name))
		for range 5 {
			if b := render(t, filepath.Join("testdata", name)); !bytes.Equal(a, b) {
				t.Fatalf("%s: two renders differ", name)
			}
		}
	}
}

func TestQuickstartContents(t *testing.T) {
	html := string(render(t, filepath.Join("testdata", "quickstart")))
	r, err := Load(filepath.Join("testdata", "quickstart"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range r.Learners {
		names = append(names, l.Name)
	}
	if got := strings.Join(names, ","); got != "crf,perceptron,hmm" {
		t.Errorf("learner order %s, want crf,perceptron,hmm (by accuracy)", got)
	}
	for _, want := range []string{
		"<h1>quickstart</h1>",
		`<tr class="best">`, "92.01", "[91.14, 92.90]", // best row with CI
		"id=\"significance\"", "0.0290", // perceptron vs crf p
		"Dev-set score", "Dev score of perceptron per epoch", // perceptron has dev scores, per epoch
		"Training loss of crf", ">L-BFGS iteration<", // the CRF's loss per L-BFGS iteration, on its own axis
		"<th>IV accuracy</th>", "95.03", // the CRF's IV accuracy
		"No dev scores recorded for crf",
		"No learning curve recorded for hmm",
		"F1 per label", "Confusion matrix: crf",
		"9dfea1d4c3643d85dd2a61ebe4b99e06049bf5b2639e4c577bb0383bb409d77a", // test data hash
		"trellis run specs/quickstart.hcl --out /tmp/report-sample",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "id=\"per-type\"") {
		t.Error("per-type section in a non-span run")
	}
}

// TestCurveUnits: the unit a curve's points carry names its axis, over
// what the learner's type implied before points carried one (a CRF with
// an encoder trains in epochs, not L-BFGS iterations); the quickstart's
// points carry none, and TestQuickstartContents reads its fallback.
func TestCurveUnits(t *testing.T) {
	r, err := Load(filepath.Join("testdata", "quickstart"))
	if err != nil {
		t.Fatal(err)
	}
	var crf *Learner
	for _, l := range r.Learners {
		if l.Name == "crf" {
			crf = l
		}
	}
	for i := range crf.Curve {
		crf.Curve[i].Unit = learn.Epoch
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if want := fmt.Sprintf("%d epochs, final", len(crf.Curve)); !strings.Contains(html, want) {
		t.Errorf("report lacks %q", want)
	}
	if strings.Contains(html, ">L-BFGS iteration<") || strings.Contains(html, "L-BFGS iterations, final") {
		t.Error("the CRF's curve is still in L-BFGS iterations")
	}
}

func TestSpanRun(t *testing.T) {
	html := string(render(t, filepath.Join("testdata", "span")))
	for _, want := range []string{
		"<th>Span F1</th>", "span precision", "span recall", "token accuracy",
		"77.42", "80.00", "75.00", // crf F1, P, R
		"F1 per span type", "LOC", "PER",
		"hmm &lt;b&gt;&amp;&#34;x&#34;", // escaped learner name
		"ner &lt;i&gt;toy&lt;/i&gt;",
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		"&#39;/tmp/a dir/it&#39;\\&#39;&#39;s&#39;", // shell-quoted command, HTML-escaped
		"<strong>crf</strong>",                      // AR p 0.012 < 0.05
		"<span class=\"ns\">0.2200</span>",          // McNemar p not significant
	} {
		if !strings.Contains(html, want) {
			t.Errorf("span report lacks %q", want)
		}
	}
	if strings.Contains(html, "<b>") || strings.Contains(html, "<i>toy") {
		t.Error("unescaped markup from input")
	}
}

func TestSegmentationRun(t *testing.T) {
	r, err := Load(filepath.Join("testdata", "seg"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Comparisons) != 0 {
		t.Errorf("comparisons without comparisons.json: %v", r.Comparisons)
	}
	l := r.Learners[0]
	if l.MainMetric != "word_f1" || l.MainValue != 0.905 {
		t.Errorf("main metric %s=%v, want word_f1=0.905 derived from words", l.MainMetric, l.MainValue)
	}
	html := string(render(t, filepath.Join("testdata", "seg")))
	for _, want := range []string{"<th>Word F1</th>", "word precision", "91.00", "90.50", "No learner recorded a learning curve", "Confusion matrix: hmm"} {
		if !strings.Contains(html, want) {
			t.Errorf("segmentation report lacks %q", want)
		}
	}
	if strings.Contains(html, "id=\"significance\"") {
		t.Error("significance section without comparisons")
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"metrics.json", "comparisons.json", "manifest.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "quickstart", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, render(t, filepath.Join("testdata", "quickstart"))) {
		t.Error("Write and WriteHTML disagree")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("Load of an empty directory succeeded")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "metrics.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte("{}"), 0o644)
	if _, err := Load(dir); err == nil {
		t.Error("Load of a run without learners succeeded")
	}
	if err := WriteHTML(&bytes.Buffer{}, &Run{}); err == nil {
		t.Error("WriteHTML of an empty run succeeded")
	}
}

// TestRenderDirs renders real run directories in place:
//
//	TRELLIS_REPORT_DIRS="/tmp/runs/a /tmp/runs/b" go test -run TestRenderDirs ./framework/report
func TestRenderDirs(t *testing.T) {
	dirs := strings.Fields(os.Getenv("TRELLIS_REPORT_DIRS"))
	if len(dirs) == 0 {
		t.Skip("TRELLIS_REPORT_DIRS not set")
	}
	for _, d := range dirs {
		if err := Write(d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}

// synthetic builds a run with n labels and k learners, with curves that
// have dev scores for some learners only.
func synthetic(n, k int) *Run {
	r := &Run{Manifest: rundir.Manifest{Experiment: "synthetic", Seed: 3, Command: []string{"trellis", "run", "x.hcl"}}}
	labels := make([]string, n)
	for i := range labels {
		labels[i] = fmt.Sprintf("L%02d-%s", i, strings.Repeat("x", i%7))
	}
	for li := range k {
		l := &Learner{Name: fmt.Sprintf("learner%d", li), HasCI: true,
			LearnerMetrics: &rundir.LearnerMetrics{Result: &eval.Result{}, Learner: "perceptron"}}
		l.Labels, l.PerLabel = labels, map[string]*eval.PRF{}
		l.Confusion = make([][]int, n)
		for i := range n {
			l.Confusion[i] = make([]int, n)
			gold := 1000 / (i + 1)
			wrong := gold * (li + 1) / 20
			l.Confusion[i][i] = gold - wrong
			l.Confusion[i][(i+1+li)%n] += wrong
			f1 := float64(gold-wrong) / float64(gold)
			l.PerLabel[labels[i]] = &eval.PRF{Precision: f1, Recall: f1, F1: f1, Gold: gold, Pred: gold, Correct: gold - wrong}
		}
		l.Accuracy = 0.95 - float64(li)*0.01
		l.MainMetric, l.MainValue = "accuracy", l.Accuracy
		l.CILow, l.CIHigh = l.Accuracy-0.01, l.Accuracy+0.01
		for s := 1; s <= 5+li; s++ {
			p := learn.Point{Step: s, Loss: 100 / float64(s)}
			if li%2 == 0 {
				p.DevScore = 0.8 + 0.1*float64(s)/float64(5+li) - 0.01*float64(li)
			}
			l.Curve = append(l.Curve, p)
		}
		r.Learners = append(r.Learners, l)
	}
	sortLearners(r.Learners)
	return r
}

func TestManyLabels(t *testing.T) {
	var a, b bytes.Buffer
	if err := WriteHTML(&a, synthetic(50, 9)); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&b, synthetic(50, 9)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("nondeterministic render")
	}
	html := a.String()
	if strings.Contains(html, `class="cnt"`) {
		t.Error("counts drawn in a 50-label confusion matrix")
	}
	if !strings.Contains(html, "hover a cell for its count") || !strings.Contains(html, "gold L49-") {
		t.Error("50-label confusion matrix incomplete")
	}
	if out := os.Getenv("TRELLIS_REPORT_OUT"); out != "" {
		os.WriteFile(out, a.Bytes(), 0o644)
	}
	var small bytes.Buffer
	if err := WriteHTML(&small, synthetic(20, 2)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(small.String(), `class="cnt"`) {
		t.Error("no counts in a 20-label confusion matrix")
	}
}
