// bench_test.go: the template's cost on CoNLL-2000 train (skipped unless
// ../../../shared/data holds it): Mapper.Fit (extraction and interning)
// with the CRFsuite baseline's templates alone and with an embedding block
// added (prepare-s: the time to decode the blocks, which reads the file
// and, for classes, runs k-means), and the block's Extract alone. The
// vectors are TRELLIS_VECTORS if set, else vectors drawn at random for the
// corpus's vocabulary (deterministic; no real vectors ship with trellis).
//
//	go test ./builtin/embedding -run XXX -bench CoNLL2000 -benchtime 3x
//	TRELLIS_VECTORS=vectors.txt go test ./builtin/embedding -run XXX -bench CoNLL2000 -benchtime 3x

package embedding_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/embeddings"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// baseline is specs/conll2000.hcl's feature set.
const baseline = `
emission "w" {
  column  = "word"
  offsets = [-2, -1, 0, 1, 2]
}
emission "w2" {
  column  = "word"
  offsets = [-1, 0]
  ngram   = 2
}
emission "pos" {
  column  = "pos"
  offsets = [-2, -1, 0, 1, 2]
}
emission "pos2" {
  column  = "pos"
  offsets = [-2, -1, 0, 1]
  ngram   = 2
}
emission "pos3" {
  column  = "pos"
  offsets = [-2, -1, 0]
  ngram   = 3
}
boundary "bound" {}
`

// cases are the blocks the benchmarks add to the baseline (%q: the
// vectors file).
var cases = []struct{ name, block string }{
	{"baseline", ""},
	{"values", "path = %q\nlowercase = true\nscale = \"std\""},
	{"values3", "path = %q\noffsets = [-1, 0, 1]\nlowercase = true\nscale = \"std\""},
	{"classes", "path = %q\nmode = \"classes\"\nk = [64, 256, 1024]\noffsets = [-1, 0, 1]\nlowercase = true"},
}

// BenchmarkCoNLL2000 times Mapper.Fit.
func BenchmarkCoNLL2000(b *testing.B) {
	sents, format, vectors := conll2000(b)
	tokens := 0
	for _, s := range sents {
		tokens += s.Len()
	}
	cols := feature.Columns{Names: format.Columns(), Label: format.LabelColumn()}
	for _, c := range cases {
		body := baseline
		if c.block != "" {
			body += "embedding \"emb\" {\n" + fmt.Sprintf(c.block, vectors) + "\n}\n"
		}
		start := time.Now()
		templates := templates(b, body)
		prepare := time.Since(start).Seconds()
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				m, err := feature.NewMapper(templates, cols)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := m.Fit(context.Background(), sents, feature.FitOptions{}); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(m.Attrs().Len()), "attrs")
			}
			b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
			b.ReportMetric(prepare, "prepare-s")
		})
	}
}

// BenchmarkCoNLL2000Extract times the embedding block's Extract alone,
// into a sink that keeps nothing: the template's own cost, without the
// encoder's per-attribute work.
func BenchmarkCoNLL2000Extract(b *testing.B) {
	sents, format, vectors := conll2000(b)
	tokens := 0
	for _, s := range sents {
		tokens += s.Len()
	}
	cols := feature.Columns{Names: format.Columns(), Label: format.LabelColumn()}
	for _, c := range cases[1:] {
		t := templates(b, "embedding \"emb\" {\n"+fmt.Sprintf(c.block, vectors)+"\n}\n")[0]
		x, err := t.Template.Compile("emb", cols)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			sink := &counter{}
			for b.Loop() {
				for _, s := range sents {
					if err := x.Extract(s, sink); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(sink.n)/float64(b.N)/float64(tokens), "attrs/token")
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(tokens), "ns/token")
		})
	}
}

// counter is a Sink that counts attributes.
type counter struct{ n int }

func (c *counter) Add(int, []byte, float64) { c.n++ }

// conll2000 reads CoNLL-2000 train (skipping the benchmark without it) and
// returns it, its format and the vectors file.
func conll2000(b *testing.B) ([]*corpus.Sentence, corpus.Format, string) {
	train := filepath.Join("..", "..", "..", "shared", "data", "conll2000", "train.txt")
	format, err := corpus.New(corpus.Config{Name: "conll", Columns: []string{"word", "pos", "chunk"}, Label: "chunk"})
	if err != nil {
		b.Fatal(err)
	}
	sents, err := corpus.ReadAll(format, train, corpus.ReadOptions{})
	if err != nil {
		b.Skipf("no CoNLL-2000 train: %v", err)
	}
	vectors := os.Getenv("TRELLIS_VECTORS")
	if vectors == "" {
		vectors = randomVectors(b, sents, 100)
	}
	return sents, format, vectors
}

// templates decodes template blocks as a spec does, and reads their files.
func templates(b *testing.B, body string) []feature.MapperTemplate {
	f, diags := hclsyntax.ParseConfig([]byte(body), "bench.hcl", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	reg, _ := builtin.Registries()
	var out []feature.MapperTemplate
	for _, block := range f.Body.(*hclsyntax.Body).Blocks {
		t, _ := reg.NewTemplate(block.Type)
		if diags := spec.DecodeTemplate(t, block.AsHCLBlock(), nil, "."); diags.HasErrors() {
			b.Fatal(diags)
		}
		out = append(out, feature.MapperTemplate{Spec: feature.TemplateSpec{Type: block.Type, Name: block.Labels[0]}, Template: t})
	}
	return out
}

// randomVectors writes standard normal vectors of dim dimensions for the
// words of sents, in order of first occurrence, and returns the file.
func randomVectors(b *testing.B, sents []*corpus.Sentence, dim int) string {
	seen := map[string]bool{}
	var words []string
	for _, s := range sents {
		for _, tok := range s.Tokens {
			if w := tok[0]; !seen[w] && !strings.ContainsAny(w, " \t") {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]float32, len(words)*dim)
	for i := range data {
		data[i] = float32(r.NormFloat64())
	}
	v, err := embeddings.New(dim, words, data)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "vectors.txt")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := embeddings.Write(f, v, embeddings.Word2VecText); err != nil {
		b.Fatal(err)
	}
	return path
}
