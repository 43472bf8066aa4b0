package clusters

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// bruteAMI is the AMI of the clustering the state holds, computed from
// the word counts alone: words not yet added are left out; join, if ≥ 0,
// is a slot whose words count as slot into's.
func bruteAMI(b *brown, join, into int) float64 {
	c := b.counts
	slot := func(w int) int {
		t := int(b.slotOf[w])
		if t == join {
			return into
		}
		return t
	}
	tokens := float64(c.Tokens)
	p := map[int]float64{}
	pair := map[[2]int]float64{}
	for w := range c.Words {
		if b.slotOf[w] < 0 {
			continue
		}
		p[slot(w)] += float64(c.Count[w]) / tokens
		for k := c.rightStart[w]; k < c.rightStart[w+1]; k++ {
			if v := int(c.right[k]); b.slotOf[v] >= 0 {
				pair[[2]int{slot(w), slot(v)}] += float64(c.rightN[k]) / tokens
			}
		}
	}
	var ami float64
	for cd, f := range pair {
		ami += f * math.Log(f/(p[cd[0]]*p[cd[1]]))
	}
	return ami
}

// checkStep compares every loss in the table with the AMI difference
// computed from scratch, and the chosen pair with the best of them.
func checkStep(t *testing.T, b *brown, a, c int) {
	t.Helper()
	before := bruteAMI(b, -1, -1)
	bestLoss := math.Inf(1)
	for k, i := range b.live {
		for _, j := range b.live[k+1:] {
			want := before - bruteAMI(b, j, i)
			if got := b.loss[i*b.s+j]; math.Abs(got-want) > 1e-9 {
				t.Fatalf("loss of merging slots %d and %d: table %.12g, from scratch %.12g", i, j, got, want)
			}
			bestLoss = min(bestLoss, want)
		}
	}
	if chosen := before - bruteAMI(b, c, a); chosen > bestLoss+1e-9 {
		t.Fatalf("merged slots %d and %d losing %.12g, but a pair loses %.12g", a, c, chosen, bestLoss)
	}
}

// randomText draws sentences over a Zipf-like vocabulary of v words from
// a few hidden classes, so that clusters are worth finding.
func randomText(seed uint64, v, sentences int) []string {
	r := rand.New(rand.NewPCG(seed, 1))
	var lines []string
	for range sentences {
		n := 2 + r.IntN(8)
		var words []string
		class := r.IntN(3)
		for range n {
			w := class + 3*int(float64(v/3)*math.Pow(r.Float64(), 2))
			if w >= v {
				w = v - 1
			}
			words = append(words, fmt.Sprintf("w%d", w))
			class = (class + 1 + r.IntN(2)) % 3
		}
		lines = append(lines, strings.Join(words, " "))
	}
	return lines
}

func countText(t testing.TB, lines []string, minCount int64) *Counts {
	t.Helper()
	c := NewCounter()
	if err := c.ReadText(strings.NewReader(strings.Join(lines, "\n")), false); err != nil {
		t.Fatal(err)
	}
	counts, err := c.Counts(minCount)
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

// TestMergesAgainstBruteForce checks, before every merge of tiny runs,
// every pair's loss against the exhaustive AMI recomputation.
func TestMergesAgainstBruteForce(t *testing.T) {
	cases := []struct {
		name     string
		lines    []string
		clusters int
		threads  int
	}{
		{"one cluster", []string{"a b a c", "b a c c"}, 1, 1},
		{"hand text", []string{"the cat sat on the mat", "the dog sat on a log", "a cat saw the dog", "the cat ran"}, 3, 1},
		{"self bigrams", []string{"a a a b", "b b a a c", "c c c"}, 2, 1},
		{"random 15 words C=3", randomText(1, 15, 40), 3, 1},
		{"random 24 words C=5", randomText(2, 24, 80), 5, 1},
		{"random 40 words C=8", randomText(3, 40, 150), 8, 1},
		{"random 40 words C=8 threads", randomText(3, 40, 150), 8, 3},
		{"more clusters than words", randomText(4, 6, 20), 10, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			counts := countText(t, tc.lines, 1)
			merges := 0
			_, err := cluster(context.Background(), counts, Options{Clusters: tc.clusters, Threads: tc.threads}, func(b *brown, a, c int) {
				checkStep(t, b, a, c)
				merges++
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := len(counts.Words) - 1; merges != want {
				t.Fatalf("%d merges, want %d", merges, want)
			}
		})
	}
}

func runText(t testing.TB, lines []string, o Options) []byte {
	counts := countText(t, lines, 1)
	r, err := Cluster(context.Background(), counts, o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestThreadsIdentical: the output does not depend on the thread count.
func TestThreadsIdentical(t *testing.T) {
	lines := randomText(5, 400, 3000)
	one := runText(t, lines, Options{Clusters: 60, Threads: 1})
	for _, threads := range []int{2, 4} {
		if got := runText(t, lines, Options{Clusters: 60, Threads: threads}); !bytes.Equal(got, one) {
			t.Fatalf("threads %d: output differs from one thread", threads)
		}
	}
}

// TestGolden clusters a small English text into 8 clusters.
func TestGolden(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("testdata", "small.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := runText(t, strings.Split(string(text), "\n"), Options{Clusters: 8})
	golden := filepath.Join("testdata", "small.clusters")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("clusters differ from %s (go test -run TestGolden -update to accept):\n%s", golden, got)
	}
	// Every word has a bit string; 8 leaves, so at most 8 distinct paths.
	paths, err := Read(golden, bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, p := range paths {
		distinct[p] = true
	}
	if len(distinct) != 8 {
		t.Fatalf("%d distinct bit strings, want 8", len(distinct))
	}
}

func TestReadCoNLLU(t *testing.T) {
	c := NewCounter()
	in := "# sent_id = 1\n1-2\tdon't\t_\n1\tdo\tdo\n2\tn't\tnot\n2.1\tx\tx\n3\tgo\tgo\n\n1\tgo\tgo\n"
	if err := c.ReadCoNLLU(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	counts, err := c.Counts(1)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(counts.Words, " "); got != "go do n't" {
		t.Fatalf("words %q", got)
	}
	if got := counts.Bigrams(2, 0) + counts.Bigrams(0, 0); got != 1 {
		t.Fatalf("bigrams n't→go + go→go = %d, want 1 (no bigram across sentences)", got)
	}
}

func TestMinCountAndCoNLL(t *testing.T) {
	c := NewCounter()
	conll := "-DOCSTART- -X- O O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\nEU NNP B-NP B-ORG\n\nPeter NNP B-NP B-PER\nrejects VBZ B-VP O\n"
	if err := c.ReadCoNLL(strings.NewReader(conll)); err != nil {
		t.Fatal(err)
	}
	counts, err := c.Counts(2)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(counts.Words, " "); got != "EU rejects" {
		t.Fatalf("words %q, want \"EU rejects\"", got)
	}
	if counts.Tokens != 4 {
		t.Fatalf("tokens %d, want 4", counts.Tokens)
	}
	// "Peter rejects": Peter is dropped, so no bigram; EU→rejects and
	// rejects→EU once each.
	if got := [2]int64{counts.Bigrams(0, 1), counts.Bigrams(1, 0)}; got != [2]int64{1, 1} {
		t.Fatalf("bigrams %v, want [1 1]", got)
	}
	if _, err := c.Counts(10); err == nil {
		t.Fatal("min count above every word: no error")
	}
}

func TestRead(t *testing.T) {
	cases := []struct{ name, in, err string }{
		{"ok", "0\ta\t3\n10\tb\t1\n11\tc\n", ""},
		{"fields", "0\ta\t3\t4\n", "x:1: want bitstring<TAB>word<TAB>count, got 4"},
		{"bits", "0\ta\t3\n2\tb\t1\n", `x:2: bit string "2"`},
		{"count", "0\ta\tmany\n", `x:1: count "many"`},
		{"duplicate", "0\ta\t3\n1\ta\t1\n", `x:2: word "a" is listed twice`},
		{"empty", "\n", "x: no clusters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Read("x", strings.NewReader(tc.in))
			if tc.err == "" {
				if err != nil || m["b"] != "10" || m["c"] != "11" {
					t.Fatalf("got %v, %v", m, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
		})
	}
}

func TestWriteFileRefusesOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.txt")
	if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Result{Words: []string{"a"}, Count: []int64{1}, Paths: []string{"0"}}
	if err := WriteFile(path, r, false); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("error %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "mine" {
		t.Fatalf("file changed: %q", b)
	}
	if err := WriteFile(path, r, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "0\ta\t1\n" {
		t.Fatalf("file %q", b)
	}
}

func BenchmarkCluster(b *testing.B) {
	counts := countText(b, randomText(6, 3000, 20000), 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Cluster(context.Background(), counts, Options{Clusters: 100}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClusterCoNLL clusters the words of a CoNLL file named by
// TRELLIS_BENCH_CONLL (e.g. CoNLL-2003's eng.train) into 300 clusters.
func BenchmarkClusterCoNLL(b *testing.B) {
	path := os.Getenv("TRELLIS_BENCH_CONLL")
	if path == "" {
		b.Skip("set TRELLIS_BENCH_CONLL to a CoNLL file")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	c := NewCounter()
	if err := c.ReadCoNLL(f); err != nil {
		b.Fatal(err)
	}
	counts, err := c.Counts(3)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Cluster(context.Background(), counts, Options{Clusters: 300}); err != nil {
			b.Fatal(err)
		}
	}
}
