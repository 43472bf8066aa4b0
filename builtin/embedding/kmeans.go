// kmeans.go: k-means of word vectors: k-means++ seeding (Arthur and
// Vassilvitskii 2007) and Lloyd's iterations, with Hamerly's (2010) bounds
// to skip the points whose assignment cannot change, and Elkan's (2003)
// test on the distances between centers to skip, for a point that needs a
// scan, the centers that cannot be nearer than the best so far.
// Distances are ‖x‖² + ‖c‖² − 2x·c with the dot products in gonum's BLAS
// (SIMD on amd64). Points are split over goroutines, but every number is
// computed the same way whatever the split, so on one platform the result
// depends only on the data, k and the seed (another platform's BLAS may
// round differently; the model records the classes, so tagging never
// recomputes them).

package embedding

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas/blas32"
)

// kmeansTolerance is scikit-learn's convergence rule: the iterations stop
// once the centers' squared moves in one iteration sum to at most this
// fraction of the data's mean per-dimension variance.
const kmeansTolerance = 1e-4

// kmeansOptions are the settings of kmeans.
type kmeansOptions struct {
	// K is the number of clusters, 1..number of points.
	K int
	// Seed seeds the k-means++ draws (with K: each k has its own stream).
	Seed uint64
	// MaxIter caps the Lloyd iterations (a center update and the
	// reassignment that follows), at least 1.
	MaxIter int
	// Workers is the number of goroutines (0: GOMAXPROCS). It never
	// changes the result.
	Workers int
	// trace, if set, is called after the seeding and after every
	// iteration with the centers and assignment (tests).
	trace func(centers []float32, assign []int32)
}

// kmeansResult is a clustering.
type kmeansResult struct {
	// Assign[i] is point i's cluster: its nearest center (the lowest
	// index among equally near ones, up to rounding).
	Assign []int32
	// Centers is a K×dim row-major matrix.
	Centers []float32
	// Iterations is the number of Lloyd iterations run.
	Iterations int
	// Converged is false when MaxIter stopped the iterations.
	Converged bool
}

// kmeans clusters the n = len(data)/dim points of data (row-major). It
// returns after an iteration that changed no assignment or moved the
// centers by less than kmeansTolerance says, or after MaxIter iterations;
// either way every point is assigned to its nearest center. A cluster
// that loses all its points keeps its center.
func kmeans(data []float32, dim int, o kmeansOptions) kmeansResult {
	m := newKM(data, dim, o)
	m.seed()
	m.traceState()
	tol := kmeansTolerance * meanVariance(data, dim)
	res := kmeansResult{}
	for res.Iterations < o.MaxIter {
		res.Iterations++
		shift := m.update()
		if shift == 0 {
			res.Converged = true // nothing moved: the assignment stands
			break
		}
		changed := m.reassign()
		m.traceState()
		if changed == 0 || shift <= tol {
			res.Converged = true
			break
		}
	}
	res.Assign, res.Centers = m.assign, m.centers
	return res
}

// meanVariance is the mean over the dimensions of the data's variance.
func meanVariance(data []float32, dim int) float64 {
	n := len(data) / dim
	mean := make([]float64, dim)
	for i, x := range data {
		mean[i%dim] += float64(x)
	}
	for d := range mean {
		mean[d] /= float64(n)
	}
	v := 0.0
	for i, x := range data {
		e := float64(x) - mean[i%dim]
		v += e * e
	}
	return v / float64(n*dim)
}

// km is the state of one k-means run.
type km struct {
	o       kmeansOptions
	data    []float32
	dim, n  int
	centers []float32 // K×dim
	// norms[i] and cnorms[j] are the squared norms of point i and center j.
	norms, cnorms []float64
	assign        []int32
	// upper[i] bounds the distance from point i to its center from
	// above, lower[i] the distance to any other center from below
	// (Euclidean distances, not squared).
	upper, lower []float64
	// half[j] is half the distance from center j to the nearest other
	// center: a point nearer to j than that has no nearer center.
	half []float64
	// between[j*K+l] is the distance between centers j and l.
	between []float32
	// moved[j] is how far center j moved in the last update.
	moved   []float64
	sums    []float64 // K×dim, for the update
	counts  []int
	workers int
}

func newKM(data []float32, dim int, o kmeansOptions) *km {
	n := len(data) / dim
	w := o.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	m := &km{
		o: o, data: data, dim: dim, n: n, workers: w,
		centers: make([]float32, o.K*dim),
		norms:   make([]float64, n),
		cnorms:  make([]float64, o.K),
		assign:  make([]int32, n),
		upper:   make([]float64, n),
		lower:   make([]float64, n),
		half:    make([]float64, o.K),
		between: make([]float32, o.K*o.K),
		moved:   make([]float64, o.K),
		sums:    make([]float64, o.K*dim),
		counts:  make([]int, o.K),
	}
	m.parallel(n, func(lo, hi int) int {
		for i := lo; i < hi; i++ {
			m.norms[i] = dot(m.point(i), m.point(i))
		}
		return 0
	})
	return m
}

func (m *km) point(i int) []float32 { return m.data[i*m.dim : (i+1)*m.dim] }

func (m *km) center(j int) []float32 { return m.centers[j*m.dim : (j+1)*m.dim] }

// dist2 is the squared distance from point i to center j.
func (m *km) dist2(i, j int) float64 {
	return max(m.norms[i]+m.cnorms[j]-2*dot(m.point(i), m.center(j)), 0)
}

func (m *km) traceState() {
	if m.o.trace != nil {
		m.o.trace(m.centers, m.assign)
	}
}

// parallel runs fn over [0, n) in contiguous blocks, one per worker, and
// returns the sum of what the calls return.
func (m *km) parallel(n int, fn func(lo, hi int) int) int { return parallel(m.workers, n, fn) }

// parallel runs fn over [0, n) in contiguous blocks on at most workers
// goroutines (one for small n), and returns the sum of what the calls
// return.
func parallel(workers, n int, fn func(lo, hi int) int) int {
	w := min(workers, max(n/256, 1))
	if w <= 1 {
		return fn(0, n)
	}
	out := make([]int, w)
	var wg sync.WaitGroup
	for b := range w {
		wg.Go(func() { out[b] = fn(b*n/w, (b+1)*n/w) })
	}
	wg.Wait()
	total := 0
	for _, x := range out {
		total += x
	}
	return total
}

// seed picks the centers by k-means++: the first uniformly, each next one
// with probability proportional to the squared distance to the nearest
// center so far. It keeps, per point, the nearest center and its distance
// and a lower bound on the distance to the others, which are the
// assignment and bounds Lloyd's iterations start from. A new center at
// least twice as far from a point's nearest center as the point is cannot
// be nearer, and its distance is not computed.
func (m *km) seed() {
	rng := rand.New(rand.NewPCG(m.o.Seed, uint64(m.o.K)))
	best := make([]float64, m.n) // squared distance to the nearest center
	for i := range best {
		best[i], m.upper[i], m.lower[i] = math.Inf(1), math.Inf(1), math.Inf(1)
	}
	toNew := make([]float64, m.o.K) // from the new center to the earlier ones
	pick := rng.IntN(m.n)
	for j := 0; j < m.o.K; j++ {
		copy(m.center(j), m.point(pick))
		m.cnorms[j] = m.norms[pick]
		for l := 0; l < j; l++ {
			toNew[l] = math.Sqrt(max(m.cnorms[j]+m.cnorms[l]-2*dot(m.center(j), m.center(l)), 0))
		}
		m.parallel(m.n, func(lo, hi int) int {
			for i := lo; i < hi; i++ {
				if between := toNew[m.assign[i]]; j > 0 && between >= 2*m.upper[i] {
					m.lower[i] = min(m.lower[i], between-m.upper[i])
					continue
				}
				d2 := m.dist2(i, j)
				if d := math.Sqrt(d2); d2 < best[i] {
					m.lower[i] = m.upper[i]
					best[i], m.upper[i], m.assign[i] = d2, d, int32(j)
				} else {
					m.lower[i] = min(m.lower[i], d)
				}
			}
			return 0
		})
		if j+1 < m.o.K {
			pick = draw(rng, best)
		}
	}
}

// draw returns an index with probability proportional to weights[i]
// (uniformly if they are all zero: every point is a center already).
func draw(rng *rand.Rand, weights []float64) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	if total == 0 {
		return rng.IntN(len(weights))
	}
	r := rng.Float64() * total
	last := 0
	for i, w := range weights {
		if w > 0 {
			if r < w {
				return i
			}
			r -= w
			last = i
		}
	}
	return last // rounding left r just above the total
}

// update moves every center to the mean of its points (a center without
// points stays), records how far each moved, and loosens the bounds by
// those moves. It returns the sum of the squared moves.
func (m *km) update() float64 {
	clear(m.sums)
	clear(m.counts)
	for i := 0; i < m.n; i++ {
		a := int(m.assign[i])
		m.counts[a]++
		s := m.sums[a*m.dim : (a+1)*m.dim]
		for d, x := range m.point(i) {
			s[d] += float64(x)
		}
	}
	shift := 0.0
	for j := 0; j < m.o.K; j++ {
		m.moved[j] = 0
		if m.counts[j] == 0 {
			continue
		}
		c, s := m.center(j), m.sums[j*m.dim:(j+1)*m.dim]
		move := 0.0
		for d := range c {
			x := float32(s[d] / float64(m.counts[j]))
			diff := float64(x) - float64(c[d])
			move += diff * diff
			c[d] = x
		}
		m.moved[j] = math.Sqrt(move)
		m.cnorms[j] = dot(c, c)
		shift += move
	}
	if shift > 0 {
		m.loosen()
	}
	return shift
}

// loosen widens every point's bounds by the moves of the centers, and
// recomputes the distances between centers and half.
func (m *km) loosen() {
	far, farJ, next := 0.0, -1, 0.0 // the largest move, its center, the second largest
	for j, p := range m.moved {
		switch {
		case p > far:
			next, far, farJ = far, p, j
		case p > next:
			next = p
		}
	}
	for i := range m.upper {
		a := int(m.assign[i])
		m.upper[i] += m.moved[a]
		if a == farJ {
			m.lower[i] -= next
		} else {
			m.lower[i] -= far
		}
	}
	m.parallel(m.o.K, func(lo, hi int) int {
		for j := lo; j < hi; j++ {
			nearest := math.Inf(1)
			row := m.between[j*m.o.K : (j+1)*m.o.K]
			for l := range row {
				d := math.Sqrt(max(m.cnorms[j]+m.cnorms[l]-2*dot(m.center(j), m.center(l)), 0))
				row[l] = float32(d)
				if l != j {
					nearest = min(nearest, d)
				}
			}
			m.half[j] = nearest / 2
		}
		return 0
	})
}

// reassign moves every point to its nearest center, computing distances
// only where the bounds allow a change, and returns how many points
// changed cluster.
func (m *km) reassign() int {
	return m.parallel(m.n, func(lo, hi int) int {
		changed := 0
		for i := lo; i < hi; i++ {
			a := int(m.assign[i])
			bound := max(m.half[a], m.lower[i])
			if m.upper[i] <= bound {
				continue
			}
			da2 := m.dist2(i, a)
			if m.upper[i] = math.Sqrt(da2); m.upper[i] <= bound {
				continue
			}
			b, d1, d2 := m.nearest(i, a, da2)
			if b != a {
				m.assign[i] = int32(b)
				changed++
			}
			m.upper[i], m.lower[i] = d1, d2
		}
		return changed
	})
}

// nearest returns point i's nearest center (the lowest index among
// equally near ones, up to rounding), the distance to it and a lower bound
// on the distance to any other, given its center a at squared distance
// da2. A center at least twice as far from the best so far as the point is
// cannot be nearer (the triangle inequality): its distance is not
// computed.
func (m *km) nearest(i, a int, da2 float64) (best int, d1, d2 float64) {
	best, d1 = a, math.Sqrt(da2)
	d1sq, d2sq, skipped := da2, math.Inf(1), math.Inf(1)
	for j := 0; j < m.o.K; j++ {
		if j == a {
			continue
		}
		if between := float64(m.between[best*m.o.K+j]); between >= 2*d1 {
			skipped = min(skipped, between-d1)
			continue
		}
		d := m.dist2(i, j)
		if d < d1sq || d == d1sq && j < best {
			best, d1sq, d2sq = j, d, d1sq
			d1 = math.Sqrt(d)
		} else {
			d2sq = min(d2sq, d)
		}
	}
	return best, d1, min(math.Sqrt(d2sq), skipped)
}

// nearestCenter returns the nearest of the centers (a k×dim matrix whose
// squared norms are cnorms) to x.
func nearestCenter(x, centers []float32, cnorms []float64) int {
	dim := len(x)
	xn := dot(x, x)
	best, bestD := 0, math.Inf(1)
	for j := range cnorms {
		if d := xn + cnorms[j] - 2*dot(x, centers[j*dim:(j+1)*dim]); d < bestD {
			best, bestD = j, d
		}
	}
	return best
}

// dot is x·y (y of x's length at least) by the BLAS.
func dot(x, y []float32) float64 {
	return float64(blas32.Implementation().Sdot(len(x), x, 1, y, 1))
}
