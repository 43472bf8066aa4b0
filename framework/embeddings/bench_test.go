// bench_test.go: reading speed, and a check that parsing does not
// allocate per value.

package embeddings

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// synthetic returns n random words' vectors of dimension dim.
func synthetic(n, dim int) *Vectors {
	r := rand.New(rand.NewPCG(1, 2))
	v := &Vectors{Dim: dim}
	for i := range n {
		v.Words = append(v.Words, fmt.Sprintf("w%d", i))
		for range dim {
			v.Data = append(v.Data, float32(r.NormFloat64()*0.3))
		}
	}
	return v
}

// TestAllocs reads 2000 words of 50 values: the allocations must be per
// word (its string, its index entry), not per value.
func TestAllocs(t *testing.T) {
	v := synthetic(2000, 50)
	for _, f := range []Format{Word2VecText, GloVe, Word2VecBinary} {
		data := encode(t, v, f)
		allocs := testing.AllocsPerRun(2, func() {
			if _, err := readBytes(data, "a", Options{}); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 1.5*2000 {
			t.Errorf("%v: %.0f allocations for 2000 words of 50 values", f, allocs)
		}
		vocab := map[string]bool{"w7": true}
		allocs = testing.AllocsPerRun(2, func() {
			if _, err := readBytes(data, "a", Options{Vocab: func(w string) bool { return vocab[w] }}); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 1.5*2000 {
			t.Errorf("%v with Vocab: %.0f allocations for 2000 words of 50 values", f, allocs)
		}
	}
}

// BenchmarkRead reads 20000 words of 100 values in each format.
func BenchmarkRead(b *testing.B) {
	v := synthetic(20000, 100)
	for _, f := range []Format{Word2VecText, Word2VecBinary} {
		data := encode(b, v, f)
		for _, vocab := range []bool{false, true} {
			o := Options{}
			name := f.String()
			if vocab {
				o.Vocab = func(w string) bool { return strings.HasSuffix(w, "7") }
				name += "/vocab"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := ReadFrom(bytes.NewReader(data), "b", o); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestFastFloat compares the fast path with strconv.ParseFloat bit for
// bit on short decimals of every shape.
func TestFastFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ins := []string{"0", "-0", "+0", "-0.000", "1.", ".5", "-.5e1", "16777215", "16777216", "1e10", "1e11",
		"1e-10", "1e-11", "0.1", "3.4e38", "0e9999", "12e", "1e+", "--1", ".", "", "e5", "1.2.3", "0x10", "1_0", "inf", "1e-0005"}
	for range 200000 {
		m := r.Uint64N(1 << 25)
		s := strconv.FormatUint(m, 10)
		if p := r.IntN(len(s) + 1); p < len(s) {
			s = s[:p] + "." + s[p:]
		}
		if r.IntN(2) == 0 {
			s += fmt.Sprintf("e%d", r.IntN(30)-15)
		}
		if r.IntN(2) == 0 {
			s = "-" + s
		}
		ins = append(ins, s)
	}
	fast := 0
	for _, s := range ins {
		x, ok := fastFloat([]byte(s))
		if !ok {
			continue
		}
		fast++
		want, err := strconv.ParseFloat(s, 32)
		if err != nil || math.Float32bits(x) != math.Float32bits(float32(want)) {
			t.Fatalf("fastFloat(%q) = %v (%#x); strconv: %v (%#x), %v", s, x, math.Float32bits(x), float32(want), math.Float32bits(float32(want)), err)
		}
	}
	if fast < len(ins)/3 {
		t.Errorf("the fast path took only %d of %d inputs", fast, len(ins))
	}
}

// BenchmarkReadGloVe reads 20000 words of 100 values written as GloVe
// and fastText do (six significant digits or fewer).
func BenchmarkReadGloVe(b *testing.B) {
	v := synthetic(20000, 100)
	var buf bytes.Buffer
	for i, w := range v.Words {
		buf.WriteString(w)
		for _, x := range v.Row(i) {
			fmt.Fprintf(&buf, " %.6g", x)
		}
		buf.WriteByte('\n')
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFrom(bytes.NewReader(data), "b", Options{Format: GloVe}); err != nil {
			b.Fatal(err)
		}
	}
}
