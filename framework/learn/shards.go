// The shards setting that learners share: how a config says it cuts the
// training sentences into fixed shards, and the check that there are
// sentences enough to fill them.

package learn

import (
	"errors"
	"fmt"

	"github.com/trellis-nlp/trellis/framework/feature"
)

// ErrTooManyShards is returned (wrapped, naming the counts) when a spec
// asks for more shards than there are training sentences to fill them:
// the spec cannot know the count, the run can once the corpus is read
// (it reports a diagnostic at the setting then, before any training).
var ErrTooManyShards = errors.New("more shards than training sentences")

// Sharded is implemented by a learner's config (Learner.Config) that has
// a shards setting: ShardCount is its value, 0 when unset.
type Sharded interface {
	ShardCount() int
}

// CheckShards returns an error wrapping ErrTooManyShards when cfg is
// Sharded and asks for more shards than train has sentences a learner
// can use (Complete), nil otherwise.
func CheckShards(cfg any, train *feature.Dataset) error {
	sh, ok := cfg.(Sharded)
	if !ok || sh.ShardCount() <= 1 {
		return nil
	}
	n := 0
	for s := range train.NumSentences() {
		if Complete(train, s) {
			n++
		}
	}
	if k := sh.ShardCount(); k > n {
		return TooManyShards(k, n)
	}
	return nil
}

// ShardsError is ErrTooManyShards with the counts.
type ShardsError struct {
	Shards, Sentences int
}

func (e *ShardsError) Error() string {
	return fmt.Sprintf("shards = %d, but the training data has %d sentences with a complete labelling to deal out; use at most %d",
		e.Shards, e.Sentences, e.Sentences)
}

// Unwrap makes a ShardsError an ErrTooManyShards.
func (e *ShardsError) Unwrap() error { return ErrTooManyShards }

// TooManyShards is the error of k shards for n usable sentences (also a
// learner's own check, for callers that train without a run).
func TooManyShards(k, n int) error { return &ShardsError{k, n} }
