// example_test.go shows the intended training loop: an Encoder, one
// Workspace per shard run on its own goroutine, a fixed-order Reduce and an
// optimiser step.

package nn_test

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/trellis-nlp/trellis/framework/nn"
)

func Example() {
	enc, err := nn.NewEncoder[float32](nn.EncoderConfig{
		Words: 50, WordDim: 8, Chars: 20, CharDim: 4, CharFilters: 6,
		Hidden: 8, Labels: 3, InputDropout: 0.5,
	})
	if err != nil {
		panic(err)
	}
	enc.Params.Init(rand.New(rand.NewPCG(1, 2)))
	// Pretrained vectors, aligned with the vocabulary, nil where missing.
	if err := enc.Word.SetRows([][]float32{{1, 0, 0, 0, 0, 0, 0, 0}, nil}); err != nil {
		panic(err)
	}

	// A batch of 8 sentences split into 2 fixed shards of 4.
	var batch []*nn.Sentence
	for i := range 8 {
		s := &nn.Sentence{}
		for t := range 5 {
			s.Words = append(s.Words, int32((i*7+t*3)%50))
			s.Chars = append(s.Chars, []int32{int32(i % 20), int32(t % 20)})
		}
		batch = append(batch, s)
	}
	const shards = 2
	ws := make([]*nn.Workspace[float32], shards)
	grads := make([]*nn.Grads[float32], shards)
	for i := range ws {
		ws[i] = enc.NewWorkspace()
		grads[i] = ws[i].Grads()
	}
	opt := &nn.Adam[float32]{Settings: nn.Settings{LearningRate: 0.01, ClipNorm: 5}}

	var wg sync.WaitGroup
	for sh := range shards {
		wg.Go(func() {
			pcg := rand.NewPCG(0, 0)
			drop := rand.New(pcg)
			for k := sh * 4; k < (sh+1)*4; k++ {
				pcg.Seed(42, uint64(k)) // the mask depends on the sentence, not the goroutine
				scores, err := ws[sh].Forward(batch[k], drop)
				if err != nil {
					panic(err)
				}
				// A CRF would give marginals − gold; here: push label 0 up.
				d := make([]float32, len(scores))
				for t := 0; t < len(d); t += 3 {
					d[t] = -1
				}
				ws[sh].Backward(d)
			}
		})
	}
	wg.Wait()
	enc.Params.Reduce(grads) // G = shard 0 + shard 1, whatever finished first
	norm := opt.Step(enc.Params)
	fmt.Println(enc.Params.Size() > 0, norm > 0)
	// Output: true true
}
