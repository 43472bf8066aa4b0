// table.go: the table extraction reads — the kept words with an index
// (and the lowercase fallback), and their vectors or classes — built from
// the file (Config.build), recorded in the settings (Config.record) and
// rebuilt from a model's settings (Config.table).

package embedding

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"strings"

	"github.com/trellis-nlp/trellis/builtin/window"
	"github.com/trellis-nlp/trellis/framework/embeddings"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// table is what extraction reads. It is read-only once built, so the
// extractors compiled from one template share it.
type table struct {
	dim   int
	words []string
	// index maps a word to its row; lower maps the lowercase form of a
	// word that is not itself a word to the first row with that form.
	index, lower map[string]int32
	// vectors is the len(words)×dim matrix (values), factor the scale.
	vectors []float32
	factor  float64
	// classes[k][row] is the class of a word under the k-th k (classes).
	classes [][]uint16
}

// newTable indexes words (which must be distinct).
func newTable(dim int, words []string) (*table, error) {
	tab := &table{dim: dim, words: words, index: make(map[string]int32, len(words)), lower: map[string]int32{}}
	for i, w := range words {
		if w == "" {
			return nil, fmt.Errorf("word %d is empty", i+1)
		}
		if _, dup := tab.index[w]; dup {
			return nil, fmt.Errorf("word %d %q repeats an earlier word", i+1, w)
		}
		tab.index[w] = int32(i)
	}
	var buf []byte
	for i, w := range words {
		buf = window.AppendLower(buf[:0], w)
		if _, ok := tab.index[string(buf)]; ok {
			continue // the word itself, or another word
		}
		if _, ok := tab.lower[string(buf)]; !ok {
			tab.lower[string(buf)] = int32(i)
		}
	}
	return tab, nil
}

// find returns word's row, -1 if it has none; with fold, a word missing
// as written is looked up in lower case (buf is scratch space).
func (tab *table) find(word string, fold bool, buf *[]byte) int32 {
	if r, ok := tab.index[word]; ok {
		return r
	}
	if !fold {
		return -1
	}
	*buf = window.AppendLower((*buf)[:0], word)
	if r, ok := tab.index[string(*buf)]; ok {
		return r
	}
	if r, ok := tab.lower[string(*buf)]; ok {
		return r
	}
	return -1
}

// build makes the table of the vectors read from the file: the scale
// factor of values, or the k-means classes.
func (c *Config) build(v *embeddings.Vectors) (*table, error) {
	tab, err := newTable(v.Dim, v.Words)
	if err != nil {
		return nil, err
	}
	if c.mode() == ModeValues {
		factor, _ := parseScale(c.Scale)
		if factor == 0 { // "std"
			std := stdDev(v.Data)
			if std == 0 {
				return nil, &feature.FileError{Attr: "scale", Summary: "Cannot scale by the standard deviation",
					Err: fmt.Errorf("every value of the %d words kept from %s is %g: their standard deviation is 0", len(v.Words), c.Path, v.Data[0])}
			}
			factor = stdTarget / std
		}
		tab.vectors, tab.factor = v.Data, factor
		return tab, nil
	}
	for _, k := range c.ks() {
		if k > len(v.Words) {
			return nil, &feature.FileError{Attr: "k", Summary: "More classes than words",
				Err: fmt.Errorf("k = %d, but only %d words are kept from %s (max_words %d)", k, len(v.Words), c.Path, c.maxWords())}
		}
	}
	tab.classes = classify(v.Data, v.Dim, c.ks(), c.seed(), c.maxIterations(), kmeansWords)
	return tab, nil
}

// stdDev is the population standard deviation of xs.
func stdDev(xs []float32) float64 {
	mean := 0.0
	for _, x := range xs {
		mean += float64(x)
	}
	mean /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		d := float64(x) - mean
		v += d * d
	}
	return math.Sqrt(v / float64(len(xs)))
}

// classify returns, for each k, the class of every row of data: k-means
// of the first fitRows rows, the rest given their nearest center, classes
// renumbered by their first row.
func classify(data []float32, dim int, ks []int, seed uint64, maxIter, fitRows int) [][]uint16 {
	n := len(data) / dim
	fit := min(n, fitRows)
	var out [][]uint16
	for _, k := range ks {
		res := kmeans(data[:fit*dim], dim, kmeansOptions{K: k, Seed: seed, MaxIter: maxIter})
		assign := append(res.Assign, make([]int32, n-fit)...)
		if n > fit {
			cnorms := make([]float64, k)
			for j := range cnorms {
				c := res.Centers[j*dim : (j+1)*dim]
				cnorms[j] = dot(c, c)
			}
			parallel(runtime.GOMAXPROCS(0), n-fit, func(lo, hi int) int {
				for i := fit + lo; i < fit+hi; i++ {
					assign[i] = int32(nearestCenter(data[i*dim:(i+1)*dim], res.Centers, cnorms))
				}
				return 0
			})
		}
		out = append(out, renumber(assign, k))
	}
	return out
}

// renumber numbers the clusters of assign in the order of their first
// member.
func renumber(assign []int32, k int) []uint16 {
	id := make([]int32, k)
	for j := range id {
		id[j] = -1
	}
	next := int32(0)
	out := make([]uint16, len(assign))
	for i, a := range assign {
		if id[a] < 0 {
			id[a] = next
			next++
		}
		out[i] = uint16(id[a])
	}
	return out
}

// record writes the table into the settings the model file keeps.
func (c *Config) record(tab *table) {
	c.Words = strings.Join(tab.words, "\n")
	c.Vectors, c.Classes, c.Factor = "", nil, 0
	if c.mode() == ModeValues {
		buf := make([]byte, 0, 4*len(tab.vectors))
		for _, x := range tab.vectors {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
		c.Vectors, c.Factor = base64.StdEncoding.EncodeToString(buf), tab.factor
		return
	}
	c.K = c.ks()
	for _, cl := range tab.classes {
		buf := make([]byte, 0, 2*len(cl))
		for _, x := range cl {
			buf = binary.LittleEndian.AppendUint16(buf, x)
		}
		c.Classes = append(c.Classes, base64.StdEncoding.EncodeToString(buf))
	}
}

// table rebuilds the table the settings record (a model's), checking it.
func (c *Config) table() (*table, error) {
	if c.Dim < 1 || c.Dim > embeddings.MaxDim {
		return nil, fmt.Errorf("corrupted settings: dim %d is outside 1..%d", c.Dim, embeddings.MaxDim)
	}
	tab, err := newTable(c.Dim, strings.Split(c.Words, "\n"))
	if err != nil {
		return nil, fmt.Errorf("corrupted settings: %w", err)
	}
	n := len(tab.words)
	if c.mode() == ModeValues {
		raw, err := decode(c.Vectors, 4*n*c.Dim, "vectors")
		if err != nil {
			return nil, err
		}
		tab.vectors = make([]float32, n*c.Dim)
		for i := range tab.vectors {
			x := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("corrupted settings: vector value %d is %v", i, x)
			}
			tab.vectors[i] = x
		}
		if tab.factor = c.Factor; !(tab.factor > 0) || math.IsInf(tab.factor, 0) {
			return nil, fmt.Errorf("corrupted settings: factor %v", c.Factor)
		}
		return tab, nil
	}
	ks := c.ks()
	if len(c.Classes) != len(ks) {
		return nil, fmt.Errorf("corrupted settings: %d class lists for %d k", len(c.Classes), len(ks))
	}
	for j, k := range ks {
		raw, err := decode(c.Classes[j], 2*n, "classes")
		if err != nil {
			return nil, err
		}
		cl := make([]uint16, n)
		for i := range cl {
			if cl[i] = binary.LittleEndian.Uint16(raw[2*i:]); int(cl[i]) >= k {
				return nil, fmt.Errorf("corrupted settings: class %d of word %d is not below k = %d", cl[i], i+1, k)
			}
		}
		tab.classes = append(tab.classes, cl)
	}
	return tab, nil
}

// decode decodes base64 data that must be size bytes.
func decode(s string, size int, what string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("corrupted settings: %s: %w", what, err)
	}
	if len(raw) != size {
		return nil, fmt.Errorf("corrupted settings: %s hold %d bytes, want %d", what, len(raw), size)
	}
	return raw, nil
}
