// train.go: Options and Train, the epochs of skip-gram with negative
// sampling over a Corpus, split in shards that train side by side.

package word2vec

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/trellis-nlp/trellis/framework/embeddings"
)

// blockTokens is how many tokens each shard trains on between two
// merges when there are several (see the package documentation). It
// takes part in the result of a run with Threads > 1, so changing it
// changes those vectors.
const blockTokens = 1 << 14

// Options are the settings of Train. DefaultOptions are word2vec.c's
// defaults for skip-gram (its -size, -window, -negative, -iter, -sample
// and -alpha), with one thread.
type Options struct {
	// Dim is the vectors' dimension, 1..embeddings.MaxDim.
	Dim int
	// Window is the largest distance between a word and its context
	// words; each word draws its window from 1..Window, so nearer words
	// weigh more.
	Window int
	// Negative is the number of noise words per (word, context) pair.
	Negative int
	// Epochs is the number of passes over the text.
	Epochs int
	// Sample is the subsampling threshold t: a token of a word whose
	// share of the text is f is kept with probability (√(f/t)+1)·t/f.
	// 0 keeps every token.
	Sample float64
	// Alpha is the starting learning rate; it decays linearly to
	// Alpha·10⁻⁴ over the run.
	Alpha float64
	// Seed chooses the initial vectors and every random draw.
	Seed uint64
	// Threads is the number of shards trained side by side (at least 1).
	// The vectors depend on it, not on the machine: see the package
	// documentation.
	Threads int
	// Progress, if set, is called from Train's goroutine with the words
	// processed so far (subsampled ones included) out of
	// Epochs × Corpus.Tokens.
	Progress func(done, total int64)
}

// DefaultOptions returns the defaults: dimension 100, window 5, 5 noise
// words, 5 epochs, sample 10⁻³, alpha 0.025, seed 1, one thread.
func DefaultOptions() Options {
	return Options{Dim: 100, Window: 5, Negative: 5, Epochs: 5, Sample: 1e-3, Alpha: 0.025, Seed: 1, Threads: 1}
}

// Check reports the first setting out of range, naming it as the
// trellis embeddings flag that sets it.
func (o *Options) Check() error {
	switch {
	case o.Dim < 1 || o.Dim > embeddings.MaxDim:
		return fmt.Errorf("--dim %d: want 1..%d", o.Dim, embeddings.MaxDim)
	case o.Window < 1:
		return fmt.Errorf("--window %d: want at least 1", o.Window)
	case o.Negative < 1:
		return fmt.Errorf("--negative %d: want at least 1", o.Negative)
	case o.Epochs < 1:
		return fmt.Errorf("--epochs %d: want at least 1", o.Epochs)
	case !(o.Sample >= 0) || math.IsInf(o.Sample, 0):
		return fmt.Errorf("--sample %v: want 0 (keep every token) or a small positive threshold such as 1e-3", o.Sample)
	case !(o.Alpha > 0) || o.Alpha > 1:
		return fmt.Errorf("--alpha %v: want a learning rate in (0, 1], such as 0.025", o.Alpha)
	case o.Threads < 1:
		return fmt.Errorf("--threads %d: want at least 1", o.Threads)
	}
	return nil
}

// trainer is one training run.
type trainer struct {
	o Options
	c *Corpus
	// mat are the input vectors (mat[0], the result) and the output
	// vectors (mat[1]), len(c.Words)×Dim each.
	mat   [2][]float32
	sig   *sigmoidTable
	noise *noise
	// keep[w] is the chance, scaled to 2³², of keeping a token of word w
	// (2³² or more: always).
	keep   []uint64
	shards []*shard
	// total is Epochs × Tokens, done the tokens processed so far.
	total, done int64
}

// Train trains skip-gram with negative sampling on c and returns the
// input vectors of c.Words, in that order. It stops with ctx's error
// when ctx is done. The result is the same for the same Corpus and
// Options (Progress aside) on every run and machine.
func Train(ctx context.Context, c *Corpus, o Options) (*embeddings.Vectors, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if c == nil || len(c.Words) == 0 || c.Tokens == 0 {
		return nil, ErrNoWords
	}
	t := newTrainer(c, o)
	for range o.Epochs {
		for _, s := range t.shards {
			s.pos = s.start
		}
		for t.more() {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t.round()
			if o.Progress != nil {
				o.Progress(t.done, t.total)
			}
		}
		if !finite(t.mat[0]) || !finite(t.mat[1]) {
			return nil, fmt.Errorf("training diverged (a vector is no longer finite): lower --alpha (%v)", o.Alpha)
		}
	}
	return embeddings.New(o.Dim, c.Words, t.mat[0])
}

// finite reports whether every value of x is finite.
func finite(x []float32) bool {
	for _, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return false
		}
	}
	return true
}

// newTrainer sets up the vectors, tables and shards of a run.
func newTrainer(c *Corpus, o Options) *trainer {
	v := len(c.Words)
	t := &trainer{o: o, c: c, sig: newSigmoidTable(), noise: newNoise(c.Counts), total: int64(o.Epochs) * c.Tokens}
	// word2vec's initialisation: input vectors uniform in
	// [−0.5/Dim, 0.5/Dim), output vectors zero.
	t.mat[0] = make([]float32, v*o.Dim)
	t.mat[1] = make([]float32, v*o.Dim)
	r := newRNG(o.Seed, 0)
	for i := range t.mat[0] {
		u := float32(float32(r.next()>>40) / (1 << 24)) // rounded, not fused with − 0.5
		t.mat[0][i] = (u - 0.5) / float32(o.Dim)
	}
	t.keep = make([]uint64, v)
	for w, n := range c.Counts {
		t.keep[w] = 1 << 32
		if o.Sample > 0 {
			st := o.Sample * float64(c.Tokens)
			if p := (math.Sqrt(float64(n)/st) + 1) * st / float64(n); p < 1 {
				t.keep[w] = uint64(float64(p * (1 << 32)))
			}
		}
	}
	t.shards = t.split()
	return t
}

// split cuts the text into Threads shards of whole sentences with about
// as many tokens each.
func (t *trainer) split() []*shard {
	n := t.o.Threads
	shards := make([]*shard, n)
	start, tokens := 0, int64(0)
	for i := range shards {
		end := start
		want := t.c.Tokens * int64(i+1) / int64(n)
		for end < len(t.c.Text) && tokens < want {
			if t.c.Text[end] >= 0 {
				tokens++
			}
			end++
		}
		for end > start && end < len(t.c.Text) && t.c.Text[end-1] >= 0 {
			end++ // to the end of the sentence, past its -1
		}
		shards[i] = &shard{t: t, start: start, end: end, rng: newRNG(t.o.Seed, uint64(i+1)), acc: make([]float32, t.o.Dim)}
		if n > 1 {
			shards[i].ov = newOverlay(len(t.c.Words), t.o.Dim)
		}
		start = end
	}
	return shards
}

// more reports whether a shard has text left in this epoch.
func (t *trainer) more() bool {
	for _, s := range t.shards {
		if s.pos < s.end {
			return true
		}
	}
	return false
}

// round trains every shard on its next block, side by side, then merges
// what they learnt into the vectors.
func (t *trainer) round() {
	base := t.done
	if len(t.shards) == 1 {
		t.shards[0].block(base)
	} else {
		var wg sync.WaitGroup
		for _, s := range t.shards {
			wg.Go(func() { s.block(base) })
		}
		wg.Wait()
		t.merge()
	}
	for _, s := range t.shards {
		t.done += s.processed
	}
}

// merge adds every shard's changes to the vectors, shard by shard in
// order, so the sums are the same whatever the scheduling: first each
// shard turns its copies into differences from the vectors (side by
// side), then the differences are added (one goroutine per matrix).
func (t *trainer) merge() {
	var wg sync.WaitGroup
	for _, s := range t.shards {
		wg.Go(func() { s.ov.subtract(&t.mat) })
	}
	wg.Wait()
	for m := range t.mat {
		wg.Go(func() {
			for _, s := range t.shards {
				s.ov.addTo(m, t.mat[m])
			}
		})
	}
	wg.Wait()
	for _, s := range t.shards {
		s.ov.reset()
	}
}

// alpha is the learning rate after done tokens.
func (t *trainer) alpha(done int64) float32 {
	return float32(t.o.Alpha * max(1-float64(done)/float64(t.total+1), 1e-4))
}
