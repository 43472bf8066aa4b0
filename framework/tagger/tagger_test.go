package tagger_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// tinyModel builds a model through the feature encoder: emission templates
// over the word column and the boundary template, with weights that make
// "the" a B-NP, any word after it an I-NP, and everything else O.
func tinyModel(t testing.TB) *model.Model {
	t.Helper()
	format := corpus.Config{Name: "conll", Columns: []string{"word", "pos", "chunk"}, Label: "chunk"}
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	specs := []feature.TemplateSpec{
		{Type: "emission", Name: "w", Config: raw(map[string]any{"column": "word", "offsets": []int{-1, 0}})},
		{Type: "emission", Name: "p2", Config: raw(map[string]any{"column": "pos", "offsets": []int{-1, 0}, "ngram": 2})},
		{Type: "boundary", Name: "b", Config: raw(map[string]any{})},
		{Type: "transition", Name: "t", Config: raw(map[string]any{})},
	}
	reg, _ := builtin.Registries()
	f, err := corpus.New(format)
	if err != nil {
		t.Fatal(err)
	}
	cols := feature.Columns{Names: f.Columns(), Label: f.LabelColumn()}
	var xs []feature.Extractor
	for _, ts := range specs {
		tmpl, err := reg.Instantiate(ts)
		if err != nil {
			t.Fatal(err)
		}
		x, err := tmpl.Compile(ts.Name, cols)
		if err != nil {
			t.Fatal(err)
		}
		if x != nil {
			xs = append(xs, x)
		}
	}
	train := "the DT B-NP\ncat NN I-NP\nsat VBD O\n\nthe DT B-NP\ndog NN I-NP\n"
	var sents []*corpus.Sentence
	r := f.NewReader(strings.NewReader(train), "train", corpus.ReadOptions{})
	for {
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sents = append(sents, s)
	}
	attrs, labels := feature.NewDictionary(), feature.NewDictionary()
	enc := feature.NewEncoder(attrs, labels, feature.ModeTrain(), xs, f.LabelColumn())
	if err := enc.Encode(sents); err != nil {
		t.Fatal(err)
	}
	lm := linear.NewObserved(enc.Dataset(), attrs.Len(), labels.Len(), true)
	for a := int32(0); a < int32(attrs.Len()); a++ {
		name := attrs.Name(a)
		for y := int32(0); y < int32(labels.Len()); y++ {
			f := lm.Feature(a, y)
			if f < 0 {
				continue
			}
			switch lab := labels.Name(y); {
			case name == "w[0]=the" && lab == "B-NP",
				name == "w[-1]=the" && lab == "I-NP":
				lm.W[f] = 5
			case lab == "O":
				lm.W[f] = 0.5
			}
		}
	}
	m := &model.Model{
		Header: model.Header{
			Version: model.Version, Labels: labels.Names(), Scheme: "iob2",
			Format: format, LabelColumn: "chunk", Templates: specs, Transitions: true,
		},
		Attrs:  attrs.Names(),
		Linear: lm,
	}
	if err := lm.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTagAndStream(t *testing.T) {
	m := tinyModel(t)
	reg, _ := builtin.Registries()
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()

	// Unlabelled input with words unseen in training, odd spacing and a
	// -DOCSTART- line.
	input := "-DOCSTART- -X- O\n\nthe DT\nbird NN\nflew VBD\n\nzebra NN\n\nsat   VBD  \nthe\tDT\nmat NN\n"
	r := tg.Format.NewReader(strings.NewReader(input), "in", corpus.ReadOptions{LabelOptional: true})
	var sents []*corpus.Sentence
	for {
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sents = append(sents, s)
	}
	pred, err := tg.Tag(sents)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"B-NP", "I-NP", "O"}, {"O"}, {"O", "B-NP", "I-NP"}}
	if !reflect.DeepEqual(pred, want) {
		t.Fatalf("Tag = %q, want %q", pred, want)
	}

	// Stream writes the input lines with the label appended (O for the
	// document boundary), trailing whitespace dropped, a blank line after
	// each sentence.
	var out bytes.Buffer
	var observed [][]string
	r = tg.Format.NewReader(strings.NewReader(input), "in", corpus.ReadOptions{LabelOptional: true})
	n, err := tg.Stream(context.Background(), r, tg.Format.NewWriter(&out), nil, func(s *corpus.Sentence, p []string) {
		observed = append(observed, append([]string(nil), p...))
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 7 {
		t.Errorf("Stream tagged %d tokens, want 7", n)
	}
	if !reflect.DeepEqual(observed, want) {
		t.Errorf("observed %q, want %q", observed, want)
	}
	wantOut := "-DOCSTART- -X- O O\n\nthe DT B-NP\nbird NN I-NP\nflew VBD O\n\nzebra NN O\n\nsat   VBD O\nthe\tDT\tB-NP\nmat NN I-NP\n\n"
	if out.String() != wantOut {
		t.Errorf("Stream output\n%s\nwant\n%s", out.String(), wantOut)
	}

	// Every input token line comes back as itself plus one label.
	var inLines []string
	for _, l := range strings.Split(input, "\n") {
		if l = strings.TrimRight(l, " \t"); l != "" {
			inLines = append(inLines, l)
		}
	}
	var outLines []string
	for _, l := range strings.Split(out.String(), "\n") {
		if l != "" {
			outLines = append(outLines, l)
		}
	}
	if len(inLines) != len(outLines) {
		t.Fatalf("%d output lines for %d input lines", len(outLines), len(inLines))
	}
	for i := range inLines {
		rest, ok := strings.CutPrefix(outLines[i], inLines[i])
		if !ok || len(rest) < 2 || (rest[0] != ' ' && rest[0] != '\t') || strings.ContainsAny(rest[1:], " \t") {
			t.Errorf("line %d: %q is not %q plus a label", i, outLines[i], inLines[i])
		}
	}

	// Batches larger than BatchSize and repeated Stream calls reuse the
	// tagger's buffers without changing results.
	var big strings.Builder
	for i := 0; i < 2*tagger.BatchSize+3; i++ {
		big.WriteString(input)
		big.WriteString("\n")
	}
	for round := 0; round < 2; round++ {
		var bigOut bytes.Buffer
		r = tg.Format.NewReader(strings.NewReader(big.String()), "in", corpus.ReadOptions{LabelOptional: true})
		if _, err := tg.Stream(context.Background(), r, tg.Format.NewWriter(&bigOut), nil, nil); err != nil {
			t.Fatal(err)
		}
		if wantBig := strings.Repeat(wantOut, 2*tagger.BatchSize+3); bigOut.String() != wantBig {
			t.Fatalf("round %d: batched output differs from per-sentence output", round)
		}
	}
}

// BenchmarkTagConll2000 tags the CoNLL-2000 test set end to end from
// memory — reading, feature extraction, encoding, decoding and writing —
// with each decoding method.
//
//	TRELLIS_BENCH_MODEL=/tmp/tagbench/models/hmm.model go test -run x -bench TagConll2000 -count 5 ./framework/tagger/
func BenchmarkTagConll2000(b *testing.B) {
	path := os.Getenv("TRELLIS_BENCH_MODEL")
	if path == "" {
		b.Skip("set TRELLIS_BENCH_MODEL to a model trained with specs/conll2000.hcl (trellis run specs/conll2000.hcl --learner hmm)")
	}
	dataPath := filepath.Join("..", "..", "..", "shared", "data", "conll2000", "test.txt")
	data, err := os.ReadFile(dataPath)
	if err != nil {
		b.Skipf("CoNLL-2000 test data not available: %v", err)
	}
	m, err := model.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	reg, _ := builtin.Registries()
	for _, c := range []struct {
		name string
		opt  tagger.Options
	}{
		{"viterbi", tagger.Options{}},
		{"greedy", tagger.Options{Decode: lattice.DecodeGreedy}},
		{"beam4", tagger.Options{Decode: lattice.DecodeBeam, Beam: 4}},
		{"posterior", tagger.Options{Decode: lattice.DecodePosterior}},
	} {
		b.Run(c.name, func(b *testing.B) {
			tg, err := tagger.New(m, reg, c.opt)
			if err != nil {
				b.Fatal(err)
			}
			defer tg.Close()
			benchmarkTag(b, tg, data, dataPath)
		})
	}
}

// BenchmarkDecodeConll2000 times the lattice scoring and decoding of
// the CoNLL-2000 test set alone, per decoding method, from sentences
// encoded once (TRELLIS_BENCH_MODEL as for BenchmarkTagConll2000);
// score-only fills the lattices without decoding them.
func BenchmarkDecodeConll2000(b *testing.B) {
	path := os.Getenv("TRELLIS_BENCH_MODEL")
	if path == "" {
		b.Skip("set TRELLIS_BENCH_MODEL to a model trained with specs/conll2000.hcl")
	}
	dataPath := filepath.Join("..", "..", "..", "shared", "data", "conll2000", "test.txt")
	data, err := os.ReadFile(dataPath)
	if err != nil {
		b.Skipf("CoNLL-2000 test data not available: %v", err)
	}
	m, err := model.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	reg, _ := builtin.Registries()
	for _, c := range []struct {
		name string
		opt  tagger.Options
	}{
		{"score-only", tagger.Options{}},
		{"viterbi", tagger.Options{}},
		{"greedy", tagger.Options{Decode: lattice.DecodeGreedy}},
		{"beam2", tagger.Options{Decode: lattice.DecodeBeam, Beam: 2}},
		{"beam4", tagger.Options{Decode: lattice.DecodeBeam, Beam: 4}},
		{"beam8", tagger.Options{Decode: lattice.DecodeBeam, Beam: 8}},
		{"posterior", tagger.Options{Decode: lattice.DecodePosterior}},
	} {
		b.Run(c.name, func(b *testing.B) {
			tg, err := tagger.New(m, reg, c.opt)
			if err != nil {
				b.Fatal(err)
			}
			defer tg.Close()
			r := tg.Format.NewReader(bytes.NewReader(data), dataPath, corpus.ReadOptions{})
			var sents []*corpus.Sentence
			tokens := 0
			for {
				s, err := r.Read()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				sents = append(sents, s)
				tokens += s.Len()
			}
			decode, err := tg.DecodeOnly(sents)
			if err != nil {
				b.Fatal(err)
			}
			if c.name == "score-only" {
				score, err := tg.ScoreOnly(sents)
				if err != nil {
					b.Fatal(err)
				}
				decode = func(k int) []int32 { score(k); return nil }
			}
			b.ReportAllocs()
			var cpu0 time.Duration
			for b.Loop() {
				if cpu0 == 0 {
					cpu0 = cpuTime()
				}
				for k := range sents {
					decode(k)
				}
			}
			b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(tokens)*float64(b.N)/cpu.Seconds(), "tokens/cpu-s")
			}
		})
	}
}

func benchmarkTag(b *testing.B, tg *tagger.Tagger, data []byte, dataPath string) {
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	tokens := 0
	var cpu0 time.Duration
	for b.Loop() {
		if cpu0 == 0 {
			cpu0 = cpuTime() // b.Loop has just reset the timer
		}
		r := tg.Format.NewReader(bytes.NewReader(data), dataPath, corpus.ReadOptions{LabelOptional: true})
		n, err := tg.Stream(ctx, r, tg.Format.NewWriter(io.Discard), nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		tokens += n
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
	if cpu > 0 {
		// Process CPU time, garbage collection on the other core included.
		b.ReportMetric(float64(tokens)/cpu.Seconds(), "tokens/cpu-s")
	}
}

// TestForbiddenFallback: when the constraints forbid every sequence (here
// IOB2 labels that are all I-), plain and detailed tagging decode without
// them, giving what an unconstrained tagger gives.
func TestForbiddenFallback(t *testing.T) {
	m := tinyModel(t)
	if len(m.Labels) != 3 {
		t.Fatalf("tiny model has %d labels, want 3", len(m.Labels))
	}
	m.Labels = []string{"I-A", "I-B", "I-C"}
	reg, _ := builtin.Registries()
	sents := func() []*corpus.Sentence {
		f, err := corpus.New(m.Format)
		if err != nil {
			t.Fatal(err)
		}
		r := f.NewReader(strings.NewReader("the DT\nbird NN\nflew VBD\n\nzebra NN\n"), "in", corpus.ReadOptions{LabelOptional: true})
		var out []*corpus.Sentence
		for {
			s, err := r.Read()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
	}
	tagWith := func(constrained bool) ([][]string, []tagger.Decoded) {
		tg, err := tagger.New(m, reg, tagger.Options{Constrained: &constrained})
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		pred, err := tg.Tag(sents())
		if err != nil {
			t.Fatal(err)
		}
		det, err := tg.TagDetailed(sents(), 2)
		if err != nil {
			t.Fatal(err)
		}
		return pred, det
	}
	pred, det := tagWith(true)
	freePred, freeDet := tagWith(false)
	if !reflect.DeepEqual(pred, freePred) || !reflect.DeepEqual(det, freeDet) {
		t.Fatalf("all-forbidden constrained tagging %q %+v, unconstrained %q %+v", pred, det, freePred, freeDet)
	}
	for k, d := range det {
		if len(d.Paths) == 0 || !reflect.DeepEqual(d.Paths[0], pred[k]) {
			t.Fatalf("sentence %d: detailed best %q, Tag %q", k, d.Paths, pred[k])
		}
	}
}
