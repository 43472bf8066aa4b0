package eval

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/scheme"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func sent(gold, pred string) Sentence {
	return Sentence{Gold: strings.Fields(gold), Pred: strings.Fields(pred)}
}

const eps = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) < eps }

// conllExample is worked by hand: 6 of 8 tokens right; gold phrases NP VP
// PER LOC, predicted NP NP PER(short) LOC, of which NP and LOC match.
var conllExample = []Sentence{
	sent("B-NP I-NP O B-VP", "B-NP I-NP O B-NP"),
	sent("B-PER I-PER O B-LOC", "B-PER O O B-LOC"),
}

func TestEvaluateSpans(t *testing.T) {
	tests := []struct {
		name                string
		sents               []Sentence
		s                   scheme.Scheme
		gold, pred, correct int
		p, r, f, acc        float64
	}{
		{"single", conllExample[:1], scheme.IOB2, 2, 2, 1, 0.5, 0.5, 0.5, 0.75},
		{"two", conllExample, scheme.IOB2, 4, 4, 2, 0.5, 0.5, 0.5, 0.75},
		{"perfect", []Sentence{sent("B-X I-X O", "B-X I-X O")}, scheme.IOB2, 1, 1, 1, 1, 1, 1, 1},
		{"no pred", []Sentence{sent("B-X O", "O O")}, scheme.IOB2, 1, 0, 0, 0, 0, 0, 0.5},
		{"no chunks", []Sentence{sent("O O", "O O")}, scheme.IOB2, 0, 0, 0, 0, 0, 0, 1},
		// conlleval reads a stray I-X as a chunk start, so this is a match.
		{"stray I", []Sentence{sent("O B-X I-X", "O I-X I-X")}, scheme.IOB2, 1, 1, 1, 1, 1, 1, 2.0 / 3},
		{"bioes", []Sentence{sent("S-A B-B E-B", "S-A B-B I-B")}, scheme.BIOES, 2, 2, 2, 1, 1, 1, 2.0 / 3},
		{"iob1", []Sentence{sent("I-NP I-NP B-NP", "I-NP I-NP I-NP")}, scheme.IOB1, 2, 1, 0, 0, 0, 0, 2.0 / 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Evaluate(tt.sents, Options{Scheme: tt.s})
			if r.GoldSpans != tt.gold || r.PredSpans != tt.pred || r.CorrectSpans != tt.correct {
				t.Errorf("spans gold/pred/correct = %d/%d/%d, want %d/%d/%d",
					r.GoldSpans, r.PredSpans, r.CorrectSpans, tt.gold, tt.pred, tt.correct)
			}
			if r.Precision == nil || !near(*r.Precision, tt.p) || !near(*r.Recall, tt.r) || !near(*r.F1, tt.f) {
				t.Errorf("P/R/F = %v/%v/%v, want %v/%v/%v", deref(r.Precision), deref(r.Recall), deref(r.F1), tt.p, tt.r, tt.f)
			}
			if !near(r.Accuracy, tt.acc) {
				t.Errorf("accuracy = %v, want %v", r.Accuracy, tt.acc)
			}
		})
	}
}

func TestPerType(t *testing.T) {
	r := Evaluate(conllExample, Options{Scheme: scheme.IOB2})
	want := map[string]PRF{
		"NP":  {Precision: 0.5, Recall: 1, F1: 2.0 / 3, Gold: 1, Pred: 2, Correct: 1},
		"VP":  {Gold: 1},
		"PER": {Gold: 1, Pred: 1},
		"LOC": {Precision: 1, Recall: 1, F1: 1, Gold: 1, Pred: 1, Correct: 1},
	}
	if len(r.PerType) != len(want) {
		t.Fatalf("PerType has %d types, want %d", len(r.PerType), len(want))
	}
	for typ, w := range want {
		t.Run(typ, func(t *testing.T) {
			g := r.PerType[typ]
			if g == nil {
				t.Fatal("missing")
			}
			if g.Gold != w.Gold || g.Pred != w.Pred || g.Correct != w.Correct ||
				!near(g.Precision, w.Precision) || !near(g.Recall, w.Recall) || !near(g.F1, w.F1) {
				t.Errorf("got %+v, want %+v", *g, w)
			}
		})
	}
}

func TestConfusionAndPerLabel(t *testing.T) {
	r := Evaluate(conllExample[:1], Options{Scheme: scheme.IOB2})
	wantLabels := []string{"B-NP", "B-VP", "I-NP", "O"}
	if !slices.Equal(r.Labels, wantLabels) {
		t.Fatalf("Labels = %v, want %v", r.Labels, wantLabels)
	}
	wantConf := [][]int{
		{1, 0, 0, 0},
		{1, 0, 0, 0},
		{0, 0, 1, 0},
		{0, 0, 0, 1},
	}
	if !reflect.DeepEqual(r.Confusion, wantConf) {
		t.Errorf("Confusion = %v, want %v", r.Confusion, wantConf)
	}
	tests := []struct {
		label               string
		gold, pred, correct int
		p, r                float64
	}{
		{"B-NP", 1, 2, 1, 0.5, 1},
		{"B-VP", 1, 0, 0, 0, 0},
		{"O", 1, 1, 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			g := r.PerLabel[tt.label]
			if g.Gold != tt.gold || g.Pred != tt.pred || g.Correct != tt.correct || !near(g.Precision, tt.p) || !near(g.Recall, tt.r) {
				t.Errorf("got %+v", *g)
			}
		})
	}
	if r.Words != nil {
		t.Error("Words set for a span scheme")
	}
}

func TestTokenAccuracy(t *testing.T) {
	a := sent("NN VB DT NN", "NN NN DT NN")
	a.OOV = []bool{false, true, false, true}
	b := sent("NN", "NN")
	b.OOV = []bool{true}
	c := sent("DT", "DT") // no OOV info: counted in neither IV nor OOV
	r := Evaluate([]Sentence{a, b, c}, Options{})
	tests := []struct {
		name      string
		got, want float64
	}{
		{"accuracy", r.Accuracy, 5.0 / 6},
		{"sentence accuracy", r.SentenceAccuracy, 2.0 / 3},
		{"iv", r.IVAccuracy, 1},
		{"oov", r.OOVAccuracy, 2.0 / 3},
		{"iv tokens", float64(r.IVTokens), 2},
		{"oov tokens", float64(r.OOVTokens), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !near(tt.got, tt.want) {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
	if r.Precision != nil || r.PerType != nil || r.Words != nil {
		t.Error("span or word scores set for scheme None")
	}
}

func TestSegWords(t *testing.T) {
	tests := []struct {
		labels string
		want   []span
	}{
		{"S S B E B M E", []span{{0, 1}, {1, 2}, {2, 4}, {4, 7}}},
		{"B I B B I I", []span{{0, 2}, {2, 3}, {3, 6}}},
		{"M E", []span{{0, 2}}},
		{"E E", []span{{0, 1}, {1, 2}}},
		{"B M", []span{{0, 2}}},
		{"B-NN E-NN S-VV", []span{{0, 2}, {2, 3}}},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.labels, func(t *testing.T) {
			if got := segWords(nil, strings.Fields(tt.labels)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSegmentation(t *testing.T) {
	chars := strings.Fields("我 爱 北 京 天 安 门")
	vocab := map[string]bool{"我": true, "爱": true, "北京": true}
	tests := []struct {
		name       string
		s          scheme.Scheme
		gold, pred string
		vocab      map[string]bool
		oov, iv    float64 // -1: expect nil
	}{
		{"bmes", scheme.BMES, "S S B E B M E", "S S B M M M E", vocab, 0, 2.0 / 3},
		{"bi", scheme.BI, "B B B I B I I", "B B B I I I I", vocab, 0, 2.0 / 3},
		{"no vocab", scheme.BMES, "S S B E B M E", "S S B M M M E", nil, -1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sent(tt.gold, tt.pred)
			s.Chars = chars
			r := Evaluate([]Sentence{s}, Options{Scheme: tt.s, Vocabulary: tt.vocab})
			w := r.Words
			if w == nil {
				t.Fatal("Words is nil")
			}
			if w.GoldWords != 4 || w.PredWords != 3 || w.CorrectWords != 2 {
				t.Errorf("gold/pred/correct = %d/%d/%d, want 4/3/2", w.GoldWords, w.PredWords, w.CorrectWords)
			}
			if !near(w.Precision, 2.0/3) || !near(w.Recall, 0.5) || !near(w.F1, 4.0/7) {
				t.Errorf("P/R/F = %v/%v/%v", w.Precision, w.Recall, w.F1)
			}
			if tt.oov < 0 {
				if w.OOVRecall != nil || w.IVRecall != nil {
					t.Error("OOV recall set without vocabulary")
				}
				return
			}
			if w.OOVRecall == nil || !near(*w.OOVRecall, tt.oov) || !near(*w.IVRecall, tt.iv) || w.OOVWords != 1 || w.IVWords != 3 {
				t.Errorf("oov/iv recall = %v/%v (%d/%d words)", deref(w.OOVRecall), deref(w.IVRecall), w.OOVWords, w.IVWords)
			}
			if r.Precision != nil {
				t.Error("span scores set for a segmentation scheme")
			}
		})
	}
}

func TestEvaluateEmpty(t *testing.T) {
	r := Evaluate(nil, Options{Scheme: scheme.IOB2})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"labels":[]`, `"confusion":[]`, `"per_label":{}`, `"f1":0`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("json %s lacks %s", b, want)
		}
	}
}

func TestEvaluatePanicsOnLengthMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	Evaluate([]Sentence{sent("O O", "O")}, Options{})
}

func TestWriteConlleval(t *testing.T) {
	r := Evaluate(conllExample, Options{Scheme: scheme.IOB2})
	var buf bytes.Buffer
	if err := r.WriteConlleval(&buf); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "conlleval.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("got:\n%s\nwant:\n%s", buf.Bytes(), want)
	}
}

// noisy returns sentences whose predictions are gold with each token
// replaced by a random label with probability rate.
func noisy(gold [][]string, rate float64, r *rand.Rand) []Sentence {
	labels := []string{"O", "B-A", "I-A", "B-B", "I-B"}
	out := make([]Sentence, len(gold))
	for i, g := range gold {
		p := slices.Clone(g)
		for t := range p {
			if r.Float64() < rate {
				p[t] = labels[r.IntN(len(labels))]
			}
		}
		out[i] = Sentence{Gold: g, Pred: p}
	}
	return out
}

func randomGold(n int, r *rand.Rand) [][]string {
	out := make([][]string, n)
	for i := range out {
		var labels []string
		for len(labels) < 5+r.IntN(20) {
			switch r.IntN(3) {
			case 0:
				labels = append(labels, "O")
			default:
				typ := []string{"A", "B"}[r.IntN(2)]
				labels = append(labels, "B-"+typ)
				for range r.IntN(3) {
					labels = append(labels, "I-"+typ)
				}
			}
		}
		out[i] = labels
	}
	return out
}

func TestCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	gold := randomGold(200, r)
	good := noisy(gold, 0.03, r)
	bad := noisy(gold, 0.25, r)

	for _, s := range []scheme.Scheme{scheme.IOB2, scheme.None} {
		t.Run(s.String(), func(t *testing.T) {
			o := Options{Scheme: s}
			t.Run("identical", func(t *testing.T) {
				c, err := Compare(good, good, o, 500, 1)
				if err != nil {
					t.Fatal(err)
				}
				if c.Diff != 0 || c.PValue != 1 || c.CILow != 0 || c.CIHigh != 0 {
					t.Errorf("identical systems: %+v", *c)
				}
			})
			t.Run("better", func(t *testing.T) {
				c, err := Compare(good, bad, o, 1000, 1)
				if err != nil {
					t.Fatal(err)
				}
				if c.Diff <= 0 || c.PValue > 0.01 || c.CILow <= 0 || c.CIHigh < c.CILow {
					t.Errorf("clearly better system: %+v", *c)
				}
				e := Evaluate(good, o)
				want := e.Accuracy
				if s.HasSpans() {
					want = *e.F1
				}
				if !near(c.A, want) {
					t.Errorf("A = %v, Evaluate says %v", c.A, want)
				}
			})
			t.Run("deterministic", func(t *testing.T) {
				c1, _ := Compare(good, bad, o, 300, 42)
				c2, _ := Compare(good, bad, o, 300, 42)
				if !reflect.DeepEqual(c1, c2) {
					t.Errorf("same seed, different results: %+v vs %+v", *c1, *c2)
				}
			})
		})
	}

	if c, _ := Compare(good, bad, Options{Scheme: scheme.IOB2}, 10, 1); c.Metric != "f1" {
		t.Errorf("metric = %q, want f1", c.Metric)
	}
}

func TestCompareErrors(t *testing.T) {
	a := []Sentence{sent("B-X O", "B-X O")}
	tests := []struct {
		name    string
		b       []Sentence
		samples int
	}{
		{"count", []Sentence{}, 10},
		{"gold", []Sentence{sent("O O", "O O")}, 10},
		{"pred length", []Sentence{sent("B-X O", "O")}, 10},
		{"samples", a, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Compare(a, tt.b, Options{Scheme: scheme.IOB2}, tt.samples, 1); err == nil {
				t.Error("want error")
			}
		})
	}
}

func TestMcNemar(t *testing.T) {
	tests := []struct {
		name     string
		a, b     []Sentence
		b01, b10 int
		p        float64
	}{
		{"same", []Sentence{sent("A B", "A C")}, []Sentence{sent("A B", "A C")}, 0, 0, 1},
		// chi2 = (|0-10|-1)^2/10 = 8.1
		{"a better", []Sentence{sent("A A A A A A A A A A", "A A A A A A A A A A")},
			[]Sentence{sent("A A A A A A A A A A", "B B B B B B B B B B")}, 0, 10, math.Erfc(math.Sqrt(8.1 / 2))},
		{"balanced", []Sentence{sent("A A", "A B")}, []Sentence{sent("A A", "B A")}, 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b01, b10, p := McNemar(tt.a, tt.b)
			if b01 != tt.b01 || b10 != tt.b10 || !near(p, tt.p) {
				t.Errorf("got %d, %d, %v; want %d, %d, %v", b01, b10, p, tt.b01, tt.b10, tt.p)
			}
		})
	}
	if _, _, p := McNemar(tests[1].a, tests[1].b); math.Abs(p-0.00443) > 1e-4 {
		t.Errorf("p = %v, want about 0.00443", p)
	}
}

func BenchmarkEvaluate(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	sents := noisy(randomGold(1000, r), 0.1, r)
	b.ReportAllocs()
	for b.Loop() {
		Evaluate(sents, Options{Scheme: scheme.IOB2})
	}
}

func BenchmarkCompare(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	gold := randomGold(1000, r)
	x, y := noisy(gold, 0.05, r), noisy(gold, 0.1, r)
	for b.Loop() {
		Compare(x, y, Options{Scheme: scheme.IOB2}, 100, 1)
	}
}

type wordSet map[string]bool

func (w wordSet) Has(s string) bool { return w[s] }

// TestNewSentence reads gold labels, OOV marks and segmentation words
// from the columns named, and keeps pred.
func TestNewSentence(t *testing.T) {
	tokens := [][]string{{"a", "x", "B"}, {"b", "y", "E"}}
	pred := []string{"B", "M"}
	s := NewSentence(tokens, pred, Columns{Label: 2, Word: 1, Vocabulary: wordSet{"x": true}, Segmentation: true})
	if !reflect.DeepEqual(s, Sentence{Gold: []string{"B", "E"}, Pred: pred, OOV: []bool{false, true}, Chars: []string{"x", "y"}}) {
		t.Fatalf("got %+v", s)
	}
	if &s.Pred[0] != &pred[0] {
		t.Error("pred copied, want kept")
	}
	s = NewSentence(tokens, pred, Columns{Label: 0, Word: -1, Segmentation: true})
	if s.OOV != nil || s.Chars != nil || !reflect.DeepEqual(s.Gold, []string{"a", "b"}) {
		t.Fatalf("without vocabulary and word column: got %+v", s)
	}
}
