// lstm.go holds LSTM, one direction of a long short-term memory layer:
// the input projection of the whole sequence as one matrix product, then
// the recurrence step by step, and backpropagation through time.

package nn

import "fmt"

// LSTM is one direction of an LSTM layer without peepholes. At step t, with
// p the previous step (t−1, or t+1 when Reverse) and h_p = c_p = 0 at the
// first step:
//
//	z = Wx·x[t] + Wh·h_p + b            (4H pre-activations)
//	i = σ(z[0:H])    f = σ(z[H:2H])    g = tanh(z[2H:3H])    o = σ(z[3H:4H])
//	c[t] = f⊙c_p + i⊙g
//	h[t] = o⊙tanh(c[t])
type LSTM[T Float] struct {
	// Wx is a [4H][In] matrix whose element [k·H+j][i] weights input i in
	// unit j of gate k (0 input, 1 forget, 2 cell, 3 output); Glorot per
	// gate.
	Wx *Param[T]
	// Wh is a [4H][H] matrix whose element [k·H+j][u] weights h_p[u] in
	// unit j of gate k; Glorot per gate.
	Wh *Param[T]
	// B is a [4H] vector, the gate biases in the same order; the forget
	// gate's are initialised to 1, the rest to 0.
	B *Param[T]
	// In is the input width, H the number of units.
	In, H int
	// Reverse runs the recurrence right to left (t = n−1 … 0). The output
	// is still indexed by input position.
	Reverse bool
}

// NewLSTM adds name+".Wx", name+".Wh" and name+".b" to ps.
func NewLSTM[T Float](ps *Params[T], name string, in, h int, reverse bool) *LSTM[T] {
	return &LSTM[T]{
		Wx:      ps.Add(name+".Wx", InitGlorotGates, false, 4*h, in),
		Wh:      ps.Add(name+".Wh", InitGlorotGates, false, 4*h, h),
		B:       ps.Add(name+".b", InitForgetBias, false, 4*h),
		In:      in,
		H:       h,
		Reverse: reverse,
	}
}

// LSTMCache is what one Forward keeps for its Backward. The zero value is
// ready; buffers grow to the longest sequence and are then reused.
type LSTMCache[T Float] struct {
	x      []T // the [n][In] input of the last Forward (a reference)
	n      int
	gates  []T // [n][4H]: element [t][k·H+j] is gate k of unit j at step t, after its nonlinearity
	cell   []T // [n][H]: element [t][j] is c[t][j]
	tcell  []T // [n][H]: element [t][j] is tanh(c[t][j])
	h      []T // [n][H]: element [t][j] is h[t][j], the output
	dgates []T // [n][4H]: element [t][k·H+j] is ∂loss/∂z at step t
	dx     []T // [n][In]: element [t][i] is ∂loss/∂x[t][i]
	dh, dc []T // [H]: ∂loss/∂h_p and ∂loss/∂c_p carried to the previous step
}

// step returns the position of the s-th step of the recurrence over n
// positions and the position of the step before it, or −1 at the first.
func (l *LSTM[T]) step(s, n int) (t, p int) {
	if l.Reverse {
		t = n - 1 - s
		if p = t + 1; p == n {
			p = -1
		}
		return t, p
	}
	return s, s - 1
}

// Forward takes x, an [n][In] matrix whose row [t] is the input at position
// t, and returns an [n][H] matrix whose element [t][j] is h[t][j], owned by
// c until its next Forward. x must not change until Backward.
func (l *LSTM[T]) Forward(c *LSTMCache[T], x []T) []T {
	n := rows(x, l.In, "lstm", l.Wx.Name)
	H, G := l.H, 4*l.H
	c.x, c.n = x, n
	c.gates = grow(c.gates, n*G)
	c.cell = grow(c.cell, n*H)
	c.tcell = grow(c.tcell, n*H)
	c.h = grow(c.h, n*H)
	fillRows(c.gates, l.B.W, n)
	gemm(1, mat(x, n, l.In), mat(l.Wx.W, G, l.In).T(), 1, mat(c.gates, n, G))
	for s := range n {
		t, p := l.step(s, n)
		if p >= 0 {
			gemm(1, mat(c.h[p*H:(p+1)*H], 1, H), mat(l.Wh.W, G, H).T(), 1, mat(c.gates[t*G:(t+1)*G], 1, G))
		}
		l.cellForward(c, t, p)
	}
	return c.h
}

// cellForward applies the gate nonlinearities at position t, whose
// pre-activations are in c.gates, and computes c[t] and h[t].
func (l *LSTM[T]) cellForward(c *LSTMCache[T], t, p int) {
	H := l.H
	z := c.gates[t*4*H : (t+1)*4*H]
	ct, tc, ht := c.cell[t*H:(t+1)*H], c.tcell[t*H:(t+1)*H], c.h[t*H:(t+1)*H]
	for j := range H {
		i, f, g, o := sigmoid(z[j]), sigmoid(z[H+j]), tanh(z[2*H+j]), sigmoid(z[3*H+j])
		z[j], z[H+j], z[2*H+j], z[3*H+j] = i, f, g, o
		cj := i * g
		if p >= 0 {
			cj += f * c.cell[p*H+j]
		}
		ct[j] = cj
		tc[j] = tanh(cj)
		ht[j] = o * tc[j]
	}
}

// Backward takes dy, an [n][H] matrix whose element [t][j] is
// ∂loss/∂h[t][j] for the last Forward, adds ∂loss/∂Wx, ∂loss/∂Wh and
// ∂loss/∂b to g, and returns an [n][In] matrix whose element [t][i] is
// ∂loss/∂x[t][i], owned by c until its next Backward.
func (l *LSTM[T]) Backward(c *LSTMCache[T], g *Grads[T], dy []T) []T {
	n, H, G, In := c.n, l.H, 4*l.H, l.In
	if len(dy) != n*H {
		panic(fmt.Sprintf("nn: lstm %q: Backward got %d values, want %d×%d", l.Wx.Name, len(dy), n, H))
	}
	c.dgates = grow(c.dgates, n*G)
	c.dh, c.dc = grow(c.dh, H), grow(c.dc, H)
	clear(c.dh)
	clear(c.dc)
	for s := n - 1; s >= 0; s-- {
		t, p := l.step(s, n)
		l.cellBackward(c, t, p, dy[t*H:(t+1)*H])
		if p >= 0 {
			gemm(1, mat(c.dgates[t*G:(t+1)*G], 1, G), mat(l.Wh.W, G, H), 0, mat(c.dh, 1, H))
		}
	}
	gemm(1, mat(c.dgates, n, G).T(), mat(c.x, n, In), 1, mat(g.Dense(l.Wx), G, In))
	if n > 1 {
		// ∂loss/∂Wh = Σt dz[t]ᵀ·h_p(t): rows of dgates paired with the rows
		// of h one step earlier in the recurrence.
		dz, hp := c.dgates[G:], c.h // forward: dz[1 … n−1] with h[0 … n−2]
		if l.Reverse {
			dz, hp = c.dgates, c.h[H:] // reverse: dz[0 … n−2] with h[1 … n−1]
		}
		gemm(1, mat(dz, n-1, G).T(), mat(hp, n-1, H), 1, mat(g.Dense(l.Wh), G, H))
	}
	addColumnSums(g.Dense(l.B), c.dgates, n, G)
	c.dx = grow(c.dx, n*In)
	gemm(1, mat(c.dgates, n, G), mat(l.Wx.W, G, In), 0, mat(c.dx, n, In))
	return c.dx
}

// cellBackward computes ∂loss/∂z at position t from dyt = ∂loss/∂h[t] from
// above plus c.dh and c.dc carried from the step after, and leaves in c.dc
// the gradient for c_p.
func (l *LSTM[T]) cellBackward(c *LSTMCache[T], t, p int, dyt []T) {
	H := l.H
	z := c.gates[t*4*H : (t+1)*4*H]
	dz := c.dgates[t*4*H : (t+1)*4*H]
	tc := c.tcell[t*H : (t+1)*H]
	for j := range H {
		i, f, g, o := z[j], z[H+j], z[2*H+j], z[3*H+j]
		var cp T
		if p >= 0 {
			cp = c.cell[p*H+j]
		}
		dh := dyt[j] + c.dh[j]
		dc := c.dc[j] + dh*o*(1-tc[j]*tc[j])
		dz[j] = dc * g * i * (1 - i)
		dz[H+j] = dc * cp * f * (1 - f)
		dz[2*H+j] = dc * i * (1 - g*g)
		dz[3*H+j] = dh * tc[j] * o * (1 - o)
		c.dc[j] = dc * f
	}
}
