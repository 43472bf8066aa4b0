package optim

// The float32 history (Settings.Float32History) is a change of arithmetic,
// so its loops are free to be fast rather than to keep the float64 path's
// bits: the two-loop recursion fuses each update of the direction with the
// next product (2·Memory+1 passes over the vectors instead of
// 4·Memory+1: the loops are bound by memory bandwidth), each pass running
// over the variables in chunks that fit the cache, whose sums are added in
// chunk order. (Running the chunks on two threads gained a small share of
// a CRF training's time, not worth the goroutines' cost in allocations:
// BenchmarkHistory; docs/results.md, "Measurements behind design choices
// in the code".)

// chunks is the number of pieces every float32-history loop cuts the
// variables into.
const chunks = 16

// eachChunk runs fn on every chunk in order; fn writes its sums into
// m.partial at indices of its own chunk (c and chunks+c).
func (m *minimizer) eachChunk(fn func(c, lo, hi int)) {
	for c := range chunks {
		fn(c, c*m.n/chunks, (c+1)*m.n/chunks)
	}
}

// sumPartial returns the sum of m.partial[at … at+chunks−1] in order.
func (m *minimizer) sumPartial(at int) float64 {
	var sum float64
	for _, v := range m.partial[at : at+chunks] {
		sum += v
	}
	return sum
}

func (m *minimizer) pairs32(j int) (s, y []float32) {
	return m.sy32[j*m.n : (j+1)*m.n], m.sy32[(m.mem+j)*m.n : (m.mem+j+1)*m.n]
}

// direction32 is direction's two-loop recursion over float32 pairs,
// d = −H·g with H the L-BFGS inverse Hessian of the stored pairs (plain
// L-BFGS: pg is g), in fused passes: each one finishes the update of one
// pair and takes the product the next pair needs.
func (m *minimizer) direction32() {
	newest := (m.end + m.mem - 1) % m.mem
	order := m.order[:0] // the slots, newest first
	for k, j := 0, newest; k < m.cnt; k, j = k+1, (j+m.mem-1)%m.mem {
		order = append(order, j)
	}
	// First loop: α_j = s_j·q / ys_j, q −= α_j·y_j, newest to oldest,
	// from q = −g.
	s0, _ := m.pairs32(order[0])
	m.eachChunk(func(c, lo, hi int) {
		d, g := m.d[lo:hi], m.pg[lo:hi]
		for i := range d {
			d[i] = -g[i]
		}
		m.partial[c] = dot32(s0[lo:hi], d)
	})
	for k, j := range order {
		m.alpha[j] = m.sumPartial(0) / m.ys[j]
		_, yj := m.pairs32(j)
		alpha := m.alpha[j]
		if k+1 < len(order) {
			next, _ := m.pairs32(order[k+1])
			m.eachChunk(func(c, lo, hi int) {
				axpy32(-alpha, yj[lo:hi], m.d[lo:hi])
				m.partial[c] = dot32(next[lo:hi], m.d[lo:hi])
			})
			continue
		}
		// The last update, the scaling by γ = ys/yy of the newest pair,
		// and the first product of the second loop.
		gamma := m.ys[newest] / m.yy[newest]
		_, yOld := m.pairs32(order[len(order)-1])
		m.eachChunk(func(c, lo, hi int) {
			d := m.d[lo:hi]
			axpy32(-alpha, yj[lo:hi], d)
			scale(gamma, d)
			m.partial[c] = dot32(yOld[lo:hi], d)
		})
	}
	// Second loop: β = y_j·r / ys_j, r += (α_j − β)·s_j, oldest to newest.
	for k := len(order) - 1; k >= 0; k-- {
		j := order[k]
		step := m.alpha[j] - m.sumPartial(0)/m.ys[j]
		sj, _ := m.pairs32(j)
		if k == 0 {
			m.eachChunk(func(c, lo, hi int) { axpy32(step, sj[lo:hi], m.d[lo:hi]) })
			break
		}
		_, yNext := m.pairs32(order[k-1])
		m.eachChunk(func(c, lo, hi int) {
			axpy32(step, sj[lo:hi], m.d[lo:hi])
			m.partial[c] = dot32(yNext[lo:hi], m.d[lo:hi])
		})
	}
}

// remember32 is remember for float32 pairs. The products are those of
// the rounded vectors the two-loop recursion will use, so that the
// implicit inverse Hessian stays consistent (and positive definite:
// ys > 0 is tested on what is stored). A rejected pair is never written:
// xp and gp have vectors of their own here.
func (m *minimizer) remember32() {
	sv, yv := m.pairs32(m.end)
	// Written into the slot at once (it holds the oldest pair, which the
	// last direction has used; if the new pair is rejected the slot is
	// forgotten, as remember does with pairs kept in their slot).
	m.eachChunk(func(c, lo, hi int) {
		var ys, yy float64
		for i := lo; i < hi; i++ {
			s, y := float32(m.x[i]-m.xp[i]), float32(m.g[i]-m.gp[i])
			sv[i], yv[i] = s, y
			ys += float64(float64(s) * float64(y))
			yy += float64(float64(y) * float64(y))
		}
		m.partial[c], m.partial[chunks+c] = ys, yy
	})
	ys, yy := m.sumPartial(0), m.sumPartial(chunks)
	if !(ys > 0) || !finite(ys) || !finite(yy) {
		if m.cnt == m.mem {
			m.cnt--
		}
		return
	}
	m.keep(ys, yy)
}
