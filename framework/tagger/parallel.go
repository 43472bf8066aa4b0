package tagger

import (
	"context"
	"io"
	"sync"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// batchJob is one batch on its way through StreamParallel: read, tagged
// by some worker, then written in its turn.
type batchJob struct {
	sents []*corpus.Sentence
	preds [][]string
	buf   []string // the labels of the whole batch (tag's buffer)
	err   error
	done  chan struct{}
}

// StreamParallel is Stream with the batches tagged by t and replicas (t's
// Replicas, one goroutine each) at the same time. Reading and writing stay
// in order: batches are cut as Stream cuts them (EndsBatch), and written
// and observed in input order, each sentence with the labels Stream gives
// it, so the output is Stream's byte for byte whatever the number of
// replicas. At most two batches per tagger are in flight, so memory stays
// proportional to the number of taggers. With no
// replicas it is Stream. As with Stream, labels handed to observe are
// the caller's to keep. On an error it returns once the taggers have
// stopped, without waiting for a read in progress: the reading goroutine
// ends when that r.Read returns.
func (t *Tagger) StreamParallel(ctx context.Context, r corpus.Reader, w corpus.Writer, keep func(i int) bool, observe func(s *corpus.Sentence, pred []string), replicas []*Tagger) (int, error) {
	if len(replicas) == 0 {
		return t.Stream(ctx, r, w, keep, observe)
	}
	taggers := append([]*Tagger{t}, replicas...)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inFlight := 2 * len(taggers)
	jobs := make(chan *batchJob)
	order := make(chan *batchJob, inFlight)
	free := make(chan *batchJob, inFlight+1)
	var workers sync.WaitGroup
	for _, tg := range taggers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for {
				var j *batchJob
				select {
				case j = <-jobs:
				case <-ctx.Done():
					return
				}
				if j == nil { // jobs closed: the reader is done
					return
				}
				if observe == nil {
					// Nothing keeps the labels past Write: reuse the buffers.
					j.preds, j.buf, j.err = tg.tag(j.sents, j.buf, j.preds)
				} else {
					j.preds, _, j.err = tg.tag(j.sents, nil, nil)
				}
				close(j.done)
			}
		}()
	}
	var readErr error
	go func() {
		defer close(order)
		defer close(jobs)
		readErr = t.readBatches(ctx, r, keep, free, order, jobs)
	}()
	tokens, err := writeInOrder(ctx, order, free, w, observe)
	if err != nil {
		// Stop the workers, but do not wait for the reader: it may be
		// blocked in r.Read (a terminal, a pipe) for as long as the input
		// takes, and it touches nothing of the caller's but r. It sees the
		// cancellation and ends when that Read returns.
		cancel()
		workers.Wait()
		return tokens, err
	}
	// order is closed, so the reader is done and readErr is set.
	workers.Wait()
	t.gatherJointStats(replicas)
	err = readErr
	if err == nil && w != nil {
		err = w.Flush()
	}
	return tokens, err
}

// readBatches reads r into batches (EndsBatch) and hands each first to
// order, then to a worker (jobs). A batch that cannot reach a worker
// (cancelled) is marked done with the context's error.
func (t *Tagger) readBatches(ctx context.Context, r corpus.Reader, keep func(int) bool, free <-chan *batchJob, order, jobs chan<- *batchJob) error {
	newJob := func() *batchJob {
		select {
		case j := <-free:
			j.sents, j.err, j.done = j.sents[:0], nil, make(chan struct{})
			return j
		default:
			return &batchJob{sents: make([]*corpus.Sentence, 0, BatchSize), done: make(chan struct{})}
		}
	}
	send := func(j *batchJob) error {
		select {
		case order <- j:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case jobs <- j:
			return nil
		case <-ctx.Done():
			j.err = ctx.Err()
			close(j.done)
			return j.err
		}
	}
	batch := newJob()
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if keep != nil && !keep(i) {
			continue
		}
		if t.EndsBatch(batch.sents, s) {
			if err := send(batch); err != nil {
				return err
			}
			batch = newJob()
		}
		batch.sents = append(batch.sents, s)
	}
	if len(batch.sents) == 0 {
		return nil
	}
	return send(batch)
}

// writeInOrder writes and observes the batches of order as each is done,
// in order, and hands their buffers back to free. It stops at the first
// error, of a batch, of w or of ctx.
func writeInOrder(ctx context.Context, order <-chan *batchJob, free chan<- *batchJob, w corpus.Writer, observe func(*corpus.Sentence, []string)) (int, error) {
	tokens := 0
	for {
		var j *batchJob
		select {
		case j = <-order:
		case <-ctx.Done(): // not held up by a reader blocked in Read
			return tokens, ctx.Err()
		}
		if j == nil { // order closed: all read
			return tokens, nil
		}
		<-j.done
		if j.err != nil {
			return tokens, j.err
		}
		for k, s := range j.sents {
			if w != nil {
				if err := w.Write(s, j.preds[k]); err != nil {
					return tokens, err
				}
			}
			if observe != nil {
				observe(s, j.preds[k])
			}
			tokens += s.Len()
		}
		clear(j.sents) // let the sentences go
		select {
		case free <- j:
		default:
		}
	}
}
