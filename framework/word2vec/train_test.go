// train_test.go: Train's determinism (runs, scheduling), the quality of
// the vectors on a corpus with a known answer, and the files they make.

package word2vec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/embeddings"
)

// groupText is a text whose sentences each draw 8 words from one of two
// groups, a1..a5 or b1..b5 (alternately), plus the rare word "once": a
// word's contexts are its own group's words only.
func groupText(sentences int) string {
	var b strings.Builder
	r := newRNG(99, 0)
	for s := range sentences {
		group := "ab"[s%2]
		for i := range 8 {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%c%d", group, 1+r.below(5))
		}
		b.WriteByte('\n')
	}
	b.WriteString("once\n")
	return b.String()
}

func groupCorpus(t testing.TB, sentences, minCount int) *Corpus {
	t.Helper()
	c := NewCounter(nil)
	if err := c.ReadText("groups", strings.NewReader(groupText(sentences))); err != nil {
		t.Fatal(err)
	}
	corpus, err := c.Corpus(minCount)
	if err != nil {
		t.Fatal(err)
	}
	return corpus
}

// smallOptions are quick settings for the test corpora.
func smallOptions(threads int) Options {
	o := DefaultOptions()
	o.Dim, o.Window, o.Epochs, o.Sample, o.Threads = 16, 3, 3, 0, threads
	return o
}

func train(t testing.TB, c *Corpus, o Options) *embeddings.Vectors {
	t.Helper()
	v, err := Train(context.Background(), c, o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func fileBytes(t testing.TB, v *embeddings.Vectors, f embeddings.Format) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := embeddings.Write(&b, v, f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDeterministic: the same corpus and options give the same bytes,
// for one shard and several, whatever GOMAXPROCS lets run at once; a
// different seed gives other vectors.
func TestDeterministic(t *testing.T) {
	c := groupCorpus(t, 3000, 1) // 24k tokens: two blocks per shard with 1 thread
	for _, threads := range []int{1, 3} {
		first := fileBytes(t, train(t, c, smallOptions(threads)), embeddings.Word2VecBinary)
		if again := fileBytes(t, train(t, c, smallOptions(threads)), embeddings.Word2VecBinary); !bytes.Equal(first, again) {
			t.Errorf("threads %d: two runs differ", threads)
		}
		prev := runtime.GOMAXPROCS(1)
		serial := fileBytes(t, train(t, c, smallOptions(threads)), embeddings.Word2VecBinary)
		runtime.GOMAXPROCS(prev)
		if !bytes.Equal(first, serial) {
			t.Errorf("threads %d: GOMAXPROCS 1 gives other vectors", threads)
		}
		o := smallOptions(threads)
		o.Seed = 2
		if other := fileBytes(t, train(t, c, o), embeddings.Word2VecBinary); bytes.Equal(first, other) {
			t.Errorf("threads %d: seeds 1 and 2 give the same vectors", threads)
		}
	}
}

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return d / math.Sqrt(na*nb)
}

// TestGroups is the quality check: words that share their contexts end
// up closer to each other than to the other group's, clearly; vectors
// that barely moved from their random start fail it.
func TestGroups(t *testing.T) {
	c := groupCorpus(t, 2000, 1)
	for _, threads := range []int{1, 2} {
		ok, msg := groupsApart(t, train(t, c, smallOptions(threads)))
		t.Logf("threads %d: %s", threads, msg)
		if !ok {
			t.Errorf("threads %d: the groups are not apart: %s", threads, msg)
		}
	}
	o := smallOptions(1)
	o.Alpha = 1e-9
	if ok, msg := groupsApart(t, train(t, c, o)); ok {
		t.Errorf("untrained vectors pass the check: %s", msg)
	}
}

// groupsApart reports whether every pair of words of a group is closer
// (cosine) than every pair across groups, and the mean within by 0.5.
func groupsApart(t *testing.T, v *embeddings.Vectors) (bool, string) {
	within, across := math.Inf(1), math.Inf(-1)
	var sumWithin, sumAcross float64
	for i := 1; i <= 5; i++ {
		for j := 1; j <= 5; j++ {
			for _, g := range []string{"a", "b"} {
				if i < j {
					s := cosine(lookup(t, v, fmt.Sprint(g, i)), lookup(t, v, fmt.Sprint(g, j)))
					within = min(within, s)
					sumWithin += s / 20
				}
			}
			s := cosine(lookup(t, v, fmt.Sprint("a", i)), lookup(t, v, fmt.Sprint("b", j)))
			across = max(across, s)
			sumAcross += s / 25
		}
	}
	msg := fmt.Sprintf("cosine within groups ≥ %.3f (mean %.3f), across ≤ %.3f (mean %.3f)", within, sumWithin, across, sumAcross)
	return within > across && sumWithin > sumAcross+0.5, msg
}

func lookup(t *testing.T, v *embeddings.Vectors, w string) []float32 {
	t.Helper()
	x, ok := v.Lookup(w)
	if !ok {
		t.Fatalf("no vector for %q", w)
	}
	return x
}

// TestReadsBack: every output format reads back with framework/
// embeddings at the dimension and vocabulary trained (MinCount
// respected), with the same values.
func TestReadsBack(t *testing.T) {
	c := groupCorpus(t, 200, 2)
	v := train(t, c, smallOptions(1))
	if v.Dim != 16 || len(v.Words) != 10 {
		t.Fatalf("dim %d, %d words; want 16 and 10 (a1..a5, b1..b5; once is below MinCount)", v.Dim, len(v.Words))
	}
	for _, f := range []embeddings.Format{embeddings.Word2VecText, embeddings.Word2VecBinary, embeddings.GloVe, embeddings.FastText} {
		b := fileBytes(t, v, f)
		got, err := embeddings.ReadFrom(bytes.NewReader(b), "vectors", embeddings.Options{})
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		if got.Dim != 16 || strings.Join(got.Words, " ") != strings.Join(c.Words, " ") {
			t.Errorf("%v: dim %d words %q, want 16 and %q", f, got.Dim, got.Words, c.Words)
		}
		if _, ok := got.Lookup("once"); ok {
			t.Errorf("%v: holds a word seen less than MinCount times", f)
		}
		for i, x := range got.Data {
			if math.Float32bits(x) != math.Float32bits(v.Data[i]) {
				t.Fatalf("%v: value %d reads back as %v, was %v", f, i, x, v.Data[i])
			}
		}
	}
}

func TestOptionsAndErrors(t *testing.T) {
	c := groupCorpus(t, 10, 1)
	for _, bad := range []func(*Options){
		func(o *Options) { o.Dim = 0 },
		func(o *Options) { o.Dim = embeddings.MaxDim + 1 },
		func(o *Options) { o.Window = 0 },
		func(o *Options) { o.Negative = 0 },
		func(o *Options) { o.Epochs = 0 },
		func(o *Options) { o.Sample = -1 },
		func(o *Options) { o.Sample = math.NaN() },
		func(o *Options) { o.Alpha = 0 },
		func(o *Options) { o.Threads = 0 },
	} {
		o := DefaultOptions()
		bad(&o)
		if _, err := Train(context.Background(), c, o); err == nil || !strings.HasPrefix(err.Error(), "--") {
			t.Errorf("%+v: %v, want an error naming the flag", o, err)
		}
	}
	if _, err := Train(context.Background(), &Corpus{}, DefaultOptions()); !errors.Is(err, ErrNoWords) {
		t.Errorf("empty corpus: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Train(ctx, c, DefaultOptions()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	o := smallOptions(1)
	o.Alpha = 1
	o.Dim = 300
	if _, err := Train(context.Background(), groupCorpus(t, 2000, 1), o); err != nil && !strings.Contains(err.Error(), "diverged") {
		t.Errorf("alpha 1: %v", err)
	}
}

// TestShards: the shards cover the text in order, in whole sentences,
// with about the same number of tokens, also with more shards than
// sentences; Progress ends at the total.
func TestShards(t *testing.T) {
	c := groupCorpus(t, 101, 1)
	for _, n := range []int{1, 2, 7, 500} {
		o := smallOptions(n)
		tr := newTrainer(c, o)
		pos := 0
		for i, s := range tr.shards {
			if s.start != pos || s.end < s.start || (s.end > s.start && c.Text[s.end-1] != -1) {
				t.Fatalf("%d shards: shard %d is [%d, %d), after %d", n, i, s.start, s.end, pos)
			}
			if tokens := s.end - s.start; n <= 7 && tokens > len(c.Text)/n+10 {
				t.Errorf("%d shards: shard %d has %d entries of %d", n, i, tokens, len(c.Text))
			}
			pos = s.end
		}
		if pos != len(c.Text) {
			t.Errorf("%d shards end at %d of %d", n, pos, len(c.Text))
		}
		var last, total int64
		o.Progress = func(done, all int64) { last, total = done, all }
		train(t, c, o)
		if last != total || total != int64(o.Epochs)*c.Tokens {
			t.Errorf("%d shards: progress ended at %d of %d, want %d", n, last, total, int64(o.Epochs)*c.Tokens)
		}
	}
}

// BenchmarkTrain reports training speed in words per second on the
// group corpus.
func BenchmarkTrain(b *testing.B) {
	c := groupCorpus(b, 20000, 1)
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprint("threads", threads), func(b *testing.B) {
			o := DefaultOptions()
			o.Epochs, o.Threads = 1, threads
			for b.Loop() {
				train(b, c, o)
			}
			b.ReportMetric(float64(c.Tokens)*float64(b.N)/b.Elapsed().Seconds(), "words/s")
		})
	}
}
