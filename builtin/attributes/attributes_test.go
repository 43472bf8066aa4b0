package attributes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// recordSink keeps every attribute as "token key value".
type recordSink struct{ got []string }

func (s *recordSink) Add(i int, key []byte, value float64) {
	s.got = append(s.got, fmt.Sprintf("%d %s %g", i, key, value))
}

// countSink keeps nothing, so allocations measured around it are the
// extractor's own.
type countSink struct {
	n   int
	sum float64
}

func (s *countSink) Add(_ int, key []byte, value float64) { s.n += len(key); s.sum += value }

func readAll(t testing.TB, cfg corpus.Config, input string, opts corpus.ReadOptions) (corpus.Format, []*corpus.Sentence) {
	t.Helper()
	f, err := corpus.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := f.NewReader(strings.NewReader(input), "in.txt", opts)
	var sents []*corpus.Sentence
	for {
		s, err := r.Read()
		if err == io.EOF {
			return f, sents
		}
		if err != nil {
			t.Fatal(err)
		}
		sents = append(sents, s)
	}
}

func compile(t testing.TB, cfg Config, name string, f corpus.Format) (feature.Extractor, error) {
	t.Helper()
	tmpl := New().(*Template)
	tmpl.cfg = cfg
	if diags := tmpl.Validate(); diags.HasErrors() {
		t.Fatal(diags)
	}
	return tmpl.Compile(name, feature.Columns{Names: f.Columns(), Label: f.LabelColumn()})
}

var crfsuiteLabel = corpus.Config{Name: corpus.NameCRFsuite, Label: "label"}

func TestExtract(t *testing.T) {
	tests := []struct {
		name   string
		format corpus.Config
		cfg    Config
		opts   corpus.ReadOptions
		input  string
		want   []string // per sentence, joined by "; "
	}{
		{
			name:   "names and values",
			format: crfsuiteLabel,
			input:  "B-NP\tw[0]=He\tlen:2\tscore:-0.5\nB-VP\tw[0]=reckons\n\nO\tw=.\n",
			want:   []string{"0 w[0]=He 1; 0 len 2; 0 score -0.5; 1 w[0]=reckons 1", "0 w=. 1"},
		},
		{
			name:   "escapes",
			format: crfsuiteLabel,
			input:  "O\tw=\\:\tw=\\::3\tpath=C\\\\tmp\ta:b:4\n",
			want:   []string{`0 w=: 1; 0 w=: 3; 0 path=C\tmp 1; 0 a:b 4`},
		},
		{
			name:   "not a number: the whole field is the name",
			format: crfsuiteLabel,
			input:  "O\turl=http://x\ta:xyz\tt:\n",
			want:   []string{"0 url=http://x 1; 0 a:xyz 1; 0 t 1"},
		},
		{
			name:   "prefix",
			format: crfsuiteLabel,
			cfg:    Config{Prefix: true},
			input:  "O\tw=a\tlen:1.5\n",
			want:   []string{"0 crf=w=a 1; 0 crf=len 1.5"},
		},
		{
			name:   "tokens without attributes and empty fields",
			format: crfsuiteLabel,
			input:  "O\nB\t\tw=b\t\nI\n",
			want:   []string{"1 w=b 1"},
		},
		{
			// The label is never an attribute, whether or not it is read.
			name:   "unlabelled input",
			format: corpus.Config{Name: corpus.NameCRFsuite},
			input:  "\tw=a\nB-NP\tw=b\n",
			want:   []string{"0 w=a 1; 1 w=b 1"},
		},
		{
			name:   "empty labels for tagging",
			format: crfsuiteLabel,
			opts:   corpus.ReadOptions{LabelOptional: true},
			input:  "\tw=a\n",
			want:   []string{"0 w=a 1"},
		},
		{
			// A column named "attributes" elsewhere is one field per token.
			name:   "conll column",
			format: corpus.Config{Name: corpus.NameCoNLL, Columns: []string{"word", "attributes", "tag"}, Label: "tag"},
			input:  "He w=he:2 PRP\n",
			want:   []string{"0 w=he 2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, sents := readAll(t, tt.format, tt.input, tt.opts)
			x, err := compile(t, tt.cfg, "crf", f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range sents {
				sink := &recordSink{}
				if err := x.Extract(s, sink); err != nil {
					t.Fatal(err)
				}
				got = append(got, strings.Join(sink.got, "; "))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestExtractErrors(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"NaN", "O\tw=a\n\nO\tw=b\nB\tx:NaN\n", `token 2 (line 4): attribute "x:NaN": value "NaN" is not a finite number`},
		{"Inf", "O\tx:-Inf\n", `token 1 (line 1): attribute "x:-Inf": value "-Inf" is not a finite number`},
		{"overflow", "O\tw=a\nO\tx:1e400\n", `token 2 (line 2): attribute "x:1e400": value "1e400" is not a finite number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, sents := readAll(t, crfsuiteLabel, tt.input, corpus.ReadOptions{})
			x, err := compile(t, Config{}, "crf", f)
			if err != nil {
				t.Fatal(err)
			}
			var last error
			for _, s := range sents {
				if err := x.Extract(s, &recordSink{}); err != nil {
					last = err
				}
			}
			if last == nil || last.Error() != tt.want {
				t.Fatalf("error = %v, want %q", last, tt.want)
			}
		})
	}
}

func TestCompile(t *testing.T) {
	tests := []struct {
		name    string
		cols    feature.Columns
		wantErr string // substring
	}{
		{"crfsuite", feature.Columns{Names: []string{"label", "attributes"}, Label: 0}, ""},
		{"crfsuite without label", feature.Columns{Names: []string{"label", "attributes"}, Label: -1}, ""},
		{"conll", feature.Columns{Names: []string{"word", "pos", "chunk"}, Label: 2},
			`the attributes template reads the "attributes" column of a corpus in CRFsuite's format (format = "crfsuite"): unknown column "attributes"`},
		{"label column", feature.Columns{Names: []string{"word", "attributes"}, Label: 1}, "is the label column"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().Compile("a", tt.cols)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestConfig checks that a block decodes from a spec and that a model's
// stored config re-creates the same template.
func TestConfig(t *testing.T) {
	tests := []struct {
		name, hcl string
		want      Config
		wantErr   string
	}{
		{"empty", ``, Config{}, ""},
		{"prefix", `prefix = true`, Config{Prefix: true}, ""},
		{"unknown", `column = "x"`, Config{}, `Unsupported argument`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, diags := hclsyntax.ParseConfig([]byte(tt.hcl), "spec.hcl", hcl.Pos{Line: 1, Column: 1})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			tmpl := New()
			diags = gohcl.DecodeBody(file.Body, nil, tmpl.Config())
			if tt.wantErr != "" {
				if !strings.Contains(diags.Error(), tt.wantErr) {
					t.Fatalf("diagnostics %v, want %q", diags, tt.wantErr)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if got := *tmpl.Config().(*Config); got != tt.want {
				t.Fatalf("decoded %+v, want %+v", got, tt.want)
			}
			raw, err := json.Marshal(tmpl.Config())
			if err != nil {
				t.Fatal(err)
			}
			reg := feature.NewRegistry()
			reg.RegisterTemplate("attributes", New)
			again, err := reg.Instantiate(feature.TemplateSpec{Type: "attributes", Name: "a", Config: raw})
			if err != nil {
				t.Fatal(err)
			}
			if got := *again.Config().(*Config); got != tt.want {
				t.Fatalf("re-created %+v from %s, want %+v", got, raw, tt.want)
			}
		})
	}
}

func TestExtractAllocs(t *testing.T) {
	input := "B-NP\tw[0]=Confidence\tw[1]=in\tpos[0]=NN\tlen:10\tw=\\:\ta:xyz\tb:1e-3\n" +
		"B-PP\tw[0]=in\tw[-1]=Confidence\tpos[0]=IN\tlen:2\n" +
		"O\n"
	for _, prefix := range []bool{false, true} {
		t.Run(fmt.Sprintf("prefix=%v", prefix), func(t *testing.T) {
			f, sents := readAll(t, crfsuiteLabel, input, corpus.ReadOptions{})
			x, err := compile(t, Config{Prefix: prefix}, "crf", f)
			if err != nil {
				t.Fatal(err)
			}
			sink := &countSink{}
			allocs := testing.AllocsPerRun(100, func() {
				if err := x.Extract(sents[0], sink); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations per sentence, want 0", allocs)
			}
			if sink.n == 0 {
				t.Error("nothing extracted")
			}
		})
	}
}

func BenchmarkExtract(b *testing.B) {
	var sb strings.Builder
	for i := range 40 {
		fmt.Fprintf(&sb, "B-NP\tw[0]=word%d\tw[-1]=prev\tw[1]=next\tpos[0]=NN\tpos[-1]|pos[0]=DT|NN\tlen:%d\tw[0]=a\\:b\n", i, i%7)
	}
	f, sents := readAll(b, crfsuiteLabel, sb.String(), corpus.ReadOptions{})
	x, err := compile(b, Config{}, "crf", f)
	if err != nil {
		b.Fatal(err)
	}
	sink := &countSink{}
	b.ReportAllocs()
	for b.Loop() {
		if err := x.Extract(sents[0], sink); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzExtract reads any input as crfsuite and extracts it: nothing may
// panic, values must be finite, reader errors must be *corpus.Error values
// inside the input and extractor errors must name their token's line.
//
// Run with: go test -run=XXX -fuzz=FuzzExtract -fuzztime=20s ./builtin/attributes/
func FuzzExtract(f *testing.F) {
	for _, seed := range []string{
		"B-NP\tw[0]=He\tlen:2\nB-VP\tw[0]=reckons\n\nO\tw=.",
		"O\tw=\\:\ta\\\\b:0.5\r\n\r\n\t\tw=x\t\n",
		"O\tx:NaN\n",
		"O\ty:1e999\tz:\t:\n",
		"O\tw=\xff\n",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, input string, prefix bool) {
		format, err := corpus.New(crfsuiteLabel)
		if err != nil {
			t.Fatal(err)
		}
		x, err := compile(t, Config{Prefix: prefix}, "crf", format)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(input, "\n") + 1
		check := func(s *corpus.Sentence, err error) {
			if s == nil { // a reader error
				var e *corpus.Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v is a %T, not *corpus.Error", err, err)
				}
				if e.File != "fuzz" || e.Line < 1 || e.Line > lines {
					t.Fatalf("error %v is outside the %d-line input", err, lines)
				}
				return
			}
			var tok, line int
			if _, scanErr := fmt.Sscanf(err.Error(), "token %d (line %d):", &tok, &line); scanErr != nil ||
				tok < 1 || tok > s.Len() || line != s.TokenLineNo[tok-1] {
				t.Fatalf("error %q does not place its token (lines %v)", err, s.TokenLineNo)
			}
		}
		r := format.NewReader(strings.NewReader(input), "fuzz", corpus.ReadOptions{LabelOptional: true})
		for {
			s, err := r.Read()
			if err == io.EOF {
				return
			}
			if err != nil {
				check(nil, err)
				return
			}
			sink := &checkSink{t: t, n: s.Len(), prefix: prefix}
			if err := x.Extract(s, sink); err != nil {
				check(s, err)
			}
		}
	})
}

type checkSink struct {
	t      *testing.T
	n      int
	prefix bool
}

func (s *checkSink) Add(i int, key []byte, value float64) {
	if i < 0 || i >= s.n || math.IsNaN(value) || math.IsInf(value, 0) {
		s.t.Fatalf("Add(%d, %q, %v) for a %d-token sentence", i, key, value, s.n)
	}
	if s.prefix && !strings.HasPrefix(string(key), "crf=") {
		s.t.Fatalf("key %q lacks the prefix", key)
	}
}
