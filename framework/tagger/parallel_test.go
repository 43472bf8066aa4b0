package tagger_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// TestStreamParallel: tagging with replicas writes and observes exactly
// what Stream does — same bytes, same labels, same order — for any number
// of replicas, with sentences skipped by keep and documents that must not
// be cut between batches.
func TestStreamParallel(t *testing.T) {
	m := documentModel(t)
	reg, _ := builtin.Registries()
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	text := documentText(700) // 2100 sentences: 8 batches
	opts := corpus.ReadOptions{LabelOptional: true}
	keep := func(i int) bool { return i%5 != 3 }
	stream := func(replicas []*tagger.Tagger) (string, [][]string, int) {
		var out bytes.Buffer
		var seen [][]string
		r := tg.Format.NewReader(strings.NewReader(text), "in.txt", opts)
		n, err := tg.StreamParallel(context.Background(), r, tg.Format.NewWriter(&out), keep, func(s *corpus.Sentence, pred []string) {
			seen = append(seen, slices.Clone(pred))
		}, replicas)
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), seen, n
	}
	wantOut, wantSeen, wantN := stream(nil)
	if !strings.Contains(wantOut, "B-LOC") || !strings.Contains(wantOut, "B-PER") {
		t.Fatal("the model tags no entity: the test checks nothing")
	}
	var replicas []*tagger.Tagger
	for n := 1; n <= 3; n++ {
		rp, err := tg.Replica(reg)
		if err != nil {
			t.Fatal(err)
		}
		defer rp.Close()
		replicas = append(replicas, rp)
		t.Run(fmt.Sprintf("replicas=%d", n), func(t *testing.T) {
			for round := range 2 {
				out, seen, tokens := stream(replicas)
				if out != wantOut {
					t.Fatalf("round %d: output differs from Stream's", round)
				}
				if !slices.EqualFunc(seen, wantSeen, slices.Equal) || tokens != wantN {
					t.Fatalf("round %d: observed %d sentences, %d tokens; Stream %d, %d", round, len(seen), tokens, len(wantSeen), wantN)
				}
			}
		})
	}
}

// failingWriter fails its nth Write.
type failingWriter struct {
	n, calls int
}

var errWrite = errors.New("disk full")

func (w *failingWriter) Write(*corpus.Sentence, []string) error {
	w.calls++
	if w.calls == w.n {
		return errWrite
	}
	return nil
}

func (w *failingWriter) Flush() error { return nil }

// stallingReader reads its first n sentences from r, then blocks in Read
// until release is closed, as a terminal or a pipe with no more input yet.
type stallingReader struct {
	r       corpus.Reader
	n       int
	release chan struct{}
}

func (s *stallingReader) Read() (*corpus.Sentence, error) {
	if s.n == 0 {
		<-s.release
		return nil, io.EOF
	}
	s.n--
	return s.r.Read()
}

// TestStreamParallelErrors: a writer's error, a reader's error and a
// cancelled context each end StreamParallel with that error (no hang, no
// later sentence written).
func TestStreamParallelErrors(t *testing.T) {
	m := documentModel(t)
	reg, _ := builtin.Registries()
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	rp, err := tg.Replica(reg)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	replicas := []*tagger.Tagger{rp}
	text := documentText(700)
	opts := corpus.ReadOptions{LabelOptional: true}

	t.Run("writer", func(t *testing.T) {
		w := &failingWriter{n: 300}
		r := tg.Format.NewReader(strings.NewReader(text), "in.txt", opts)
		if _, err := tg.StreamParallel(context.Background(), r, w, nil, nil, replicas); !errors.Is(err, errWrite) {
			t.Fatalf("error %v, want %v", err, errWrite)
		}
		if w.calls != w.n {
			t.Fatalf("%d writes after the failing one", w.calls-w.n)
		}
	})
	t.Run("reader", func(t *testing.T) {
		bad := text[:len(text)/2] + "a b c\n" + text[len(text)/2:]
		r := tg.Format.NewReader(strings.NewReader(bad), "in.txt", opts)
		var out bytes.Buffer
		_, err := tg.StreamParallel(context.Background(), r, tg.Format.NewWriter(&out), nil, nil, replicas)
		var ce *corpus.Error
		if !errors.As(err, &ce) {
			t.Fatalf("error %v, want the reader's", err)
		}
	})
	// An error must not wait for more input: the reader is stuck in Read
	// (released only when the subtest ends) after enough sentences for
	// several batches.
	stalled := func(t *testing.T) corpus.Reader {
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		r := tg.Format.NewReader(strings.NewReader(text), "in.txt", opts)
		return &stallingReader{r: r, n: 600, release: release}
	}
	returns := func(t *testing.T, run func() error, want error) {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- run() }()
		select {
		case err := <-done:
			if !errors.Is(err, want) {
				t.Fatalf("error %v, want %v", err, want)
			}
		case <-time.After(time.Minute):
			t.Fatal("StreamParallel waits for a reader blocked in Read")
		}
	}
	t.Run("writer, reader blocked", func(t *testing.T) {
		r := stalled(t)
		returns(t, func() error {
			_, err := tg.StreamParallel(context.Background(), r, &failingWriter{n: 300}, nil, nil, replicas)
			return err
		}, errWrite)
	})
	t.Run("cancelled, reader blocked", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		seen := 0
		r := stalled(t)
		returns(t, func() error {
			_, err := tg.StreamParallel(ctx, r, nil, nil, func(*corpus.Sentence, []string) {
				if seen++; seen == 500 {
					cancel()
				}
			}, replicas)
			return err
		}, context.Canceled)
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		seen := 0
		r := tg.Format.NewReader(strings.NewReader(text), "in.txt", opts)
		_, err := tg.StreamParallel(ctx, r, nil, nil, func(*corpus.Sentence, []string) {
			if seen++; seen == 10 {
				cancel()
			}
		}, replicas)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
	})
}

// BenchmarkStreamParallelConll2000 tags the CoNLL-2000 test set end to end
// from memory with 1, 2 and 4 taggers (StreamParallel, as `trellis tag
// --threads N`); with the machine's cores free, tokens/s grows with N while
// tokens/cpu-s shows what the pipeline costs.
//
//	TRELLIS_BENCH_MODEL=/tmp/c2k/models/crf.model go test -run x -bench StreamParallelConll2000 -count 5 ./framework/tagger/
func BenchmarkStreamParallelConll2000(b *testing.B) {
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
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	var replicas []*tagger.Tagger
	for _, n := range []int{1, 2, 4} {
		for len(replicas) < n-1 {
			rp, err := tg.Replica(reg)
			if err != nil {
				b.Fatal(err)
			}
			defer rp.Close()
			replicas = append(replicas, rp)
		}
		b.Run(fmt.Sprintf("threads=%d", n), func(b *testing.B) {
			ctx := context.Background()
			b.SetBytes(int64(len(data)))
			tokens := 0
			var cpu0 time.Duration
			for b.Loop() {
				if cpu0 == 0 {
					cpu0 = cpuTime()
				}
				r := tg.Format.NewReader(bytes.NewReader(data), dataPath, corpus.ReadOptions{LabelOptional: true})
				k, err := tg.StreamParallel(ctx, r, tg.Format.NewWriter(io.Discard), nil, nil, replicas[:n-1])
				if err != nil {
					b.Fatal(err)
				}
				tokens += k
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(tokens)/cpu.Seconds(), "tokens/cpu-s")
			}
		})
	}
}
