package clusters

import "sync"

// pool runs a loop's iterations on a fixed set of goroutines. Each
// iteration runs on exactly one of them, so when iterations write
// disjoint results the outcome does not depend on the number of threads.
type pool struct {
	threads int
	work    chan chunk
	wg      sync.WaitGroup
}

type chunk struct {
	fn     func(int)
	lo, hi int
}

func newPool(threads int) *pool {
	p := &pool{threads: max(threads, 1)}
	if p.threads > 1 {
		p.work = make(chan chunk)
		for range p.threads {
			go func() {
				for c := range p.work {
					for k := c.lo; k < c.hi; k++ {
						c.fn(k)
					}
					p.wg.Done()
				}
			}()
		}
	}
	return p
}

// minChunk is the fewest iterations worth handing to another goroutine.
const minChunk = 16

// each calls fn(k) for k in [0, n).
func (p *pool) each(n int, fn func(int)) {
	if p.threads <= 1 || n < 2*minChunk {
		for k := range n {
			fn(k)
		}
		return
	}
	parts := min(p.threads, n/minChunk)
	p.wg.Add(parts)
	for t := range parts {
		p.work <- chunk{fn: fn, lo: n * t / parts, hi: n * (t + 1) / parts}
	}
	p.wg.Wait()
}

// stop ends the goroutines.
func (p *pool) stop() {
	if p.work != nil {
		close(p.work)
	}
}
