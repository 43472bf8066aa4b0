package lattice

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Method is how a lattice is turned into one label sequence.
type Method uint8

const (
	// DecodeViterbi finds the best sequence exactly (Workspace.Viterbi).
	DecodeViterbi Method = iota
	// DecodeGreedy picks, left to right, each position's best label given
	// the previous pick (Decoder.Greedy).
	DecodeGreedy
	// DecodeBeam keeps the N best partial paths per position
	// (Decoder.Beam).
	DecodeBeam
	// DecodePosterior picks the sequence of largest marginals that the
	// constraints allow (Decoder.Posterior).
	DecodePosterior
	// DecodeLabelPath picks, for a lattice over hidden states, the
	// labelling of largest probability summed over its state paths
	// (Decoder.LabelPath); without hidden states it is Viterbi.
	DecodeLabelPath
)

// MethodNames are the spellings ParseMethod accepts, in Method order.
var MethodNames = []string{"viterbi", "greedy", "beam", "posterior", "labelpath"}

func (m Method) String() string {
	if int(m) < len(MethodNames) {
		return MethodNames[m]
	}
	return fmt.Sprintf("Method(%d)", m)
}

// MarshalText writes the method's name, for the run's records.
func (m Method) MarshalText() ([]byte, error) {
	if int(m) >= len(MethodNames) {
		return nil, fmt.Errorf("lattice: unknown decoding method %d", m)
	}
	return []byte(m.String()), nil
}

// UnmarshalText reads a method's name.
func (m *Method) UnmarshalText(b []byte) error {
	v, ok := ParseMethod(string(b))
	if !ok {
		return fmt.Errorf("unknown decoding method %q", b)
	}
	*m = v
	return nil
}

// ParseMethod returns the method named s (case-insensitive).
func ParseMethod(s string) (Method, bool) {
	for k, name := range MethodNames {
		if strings.EqualFold(s, name) {
			return Method(k), true
		}
	}
	return 0, false
}

// Decoder decodes lattices with one Method. It holds the buffers the
// approximate decoders need and a Workspace for Viterbi and
// forward-backward; like a Workspace it grows to the longest sentence it
// has seen and then allocates nothing, and it is not safe for concurrent
// use.
//
// Every method honours the constraints the way Viterbi does: they live in
// the Scores as -Inf (a Chain's transitions, or Constraints.Apply), and no
// method ever picks a -Inf start, transition or stop while an allowed one
// exists. Greedy and a narrow beam commit early and can walk into a dead
// end (a label no allowed label follows); they then report -Inf, as
// Viterbi does when every sequence is forbidden, and Decode falls back to
// Viterbi for that sentence.
type Decoder struct {
	Method Method
	// Width is the beam width of DecodeBeam (at least 1).
	Width int
	// States, when 2 or more, reads the lattice's labels as hidden states,
	// States per label (a latent model's; state s belongs to label
	// s / States): Posterior then maximizes the labels' marginals, each the
	// sum of its states' marginals, and returns a state path with those
	// labels, each token's state the label's most probable one that the
	// constraints allow beside its neighbours; LabelPath finds the most
	// probable labelling. The other methods decode states as they decode
	// labels.
	States int

	ws *Workspace
	l  int
	// Greedy and beam: one backpointer row per position; the scores of
	// the labels kept at the previous and the current position; the kept
	// labels in increasing order (prevKeep) and the candidates ranked
	// (rank).
	back           []int32
	prevScore, cur []float64
	prevKeep, rank []int32
	nextKeep       []int32
	// Posterior: the log marginals as the state scores of a lattice whose
	// transitions are 0 where s allows the bigram and -Inf where it does
	// not.
	// maskAt is the per-position mask of s.TransAt, grown to the longest
	// sentence seen so that no sentence allocates once warm.
	post                       Scores
	logMarg                    []float64
	stateMarg                  []float64 // Posterior with States: the states' own marginals
	maskTrans, maskStart, mask []float64
	maskAt                     []float64
	maskTri                    []float64 // a second-order lattice's trigram mask
	// LabelPath: the n-best state paths and scores, the labellings seen
	// with their probabilities, and the clamped lattice's state scores.
	nbPaths  [][]int32
	nbScores []float64
	seen     [][]int32 // every labelling scored in the call, in order
	seenP    []float64 // and its probability
	counted  []int     // the seen labellings the current pass has counted
	labels   []int32   // scratch: the labels of one state path
	clamped  []float64
}

// NewDecoder returns a decoder over ws's labels. width is the beam width
// (ignored unless m is DecodeBeam, where it must be at least 1).
func NewDecoder(ws *Workspace, m Method, width int) *Decoder {
	if m == DecodeBeam && width < 1 {
		panic("lattice: beam width below 1")
	}
	if m > DecodeLabelPath {
		panic("lattice: unknown decoding method")
	}
	l := ws.l
	d := &Decoder{Method: m, Width: width, ws: ws, l: l,
		prevScore: make([]float64, l), cur: make([]float64, l),
		prevKeep: make([]int32, 0, l), nextKeep: make([]int32, 0, l), rank: make([]int32, 0, l)}
	return d
}

// Workspace returns the workspace the decoder runs Viterbi and
// forward-backward in.
func (d *Decoder) Workspace() *Workspace { return d.ws }

// Decode writes the sequence d.Method finds into dst (length s.N) and
// returns its score under s. When the method finds no allowed sequence
// (a dead end of greedy or beam search) it returns Viterbi's answer; -Inf
// means that every sequence is forbidden.
func (d *Decoder) Decode(dst []int32, s *Scores) float64 {
	var score float64
	switch d.Method {
	case DecodeGreedy:
		score = d.Beam(dst, s, 1)
	case DecodeBeam:
		score = d.Beam(dst, s, d.Width)
	case DecodePosterior:
		if score = d.Posterior(dst, s); !math.IsInf(score, -1) {
			return SequenceScore(s, dst)
		}
	case DecodeLabelPath:
		score = d.LabelPath(dst, s)
	default:
		return d.ws.Viterbi(dst, s)
	}
	if math.IsInf(score, -1) {
		return d.ws.Viterbi(dst, s)
	}
	return score
}

func (d *Decoder) grow(n int) {
	if need := n * d.l; cap(d.back) < need {
		d.back = make([]int32, 2*need)
	}
}

// Greedy writes into dst the sequence built left to right: the first
// label maximizes Start + State, each next one the transition from the
// label before plus its State (plus Stop at the last position), ties to
// the lowest label. It returns the sequence's score, or -Inf when the
// constraints leave no label at some position. It is Beam with width 1.
func (d *Decoder) Greedy(dst []int32, s *Scores) float64 { return d.Beam(dst, s, 1) }

// Beam writes into dst the best sequence found by a beam search of the
// given width and returns its score (-Inf when every partial path dies
// against the constraints).
//
// Partial paths that end in the same label are recombined, as Viterbi
// does: only the best one can be the prefix of the best completion, so a
// beam holds at most one path per label, and "the width best partial
// paths" are the width best labels of the position with their best
// paths. Each position scores every label from the kept labels of the
// previous one — adding the same numbers in the same order as Viterbi,
// ties to the lowest predecessor — and keeps the width best (ties to the
// lowest label); the last position ranks with Stop added. So width 1 is
// greedy decoding, and a width of at least L keeps every label and gives
// Viterbi's path and score bit for bit.
func (d *Decoder) Beam(dst []int32, s *Scores, width int) float64 {
	d.ws.checkL(s)
	n, l := s.N, s.L
	if len(dst) != n {
		panic("lattice: Beam dst length differs from N")
	}
	if width < 1 {
		panic("lattice: beam width below 1")
	}
	if n == 0 {
		return 0
	}
	d.grow(n)
	back := d.back[:n*l]
	prev, cur := d.prevScore, d.cur
	for y := 0; y < l; y++ {
		cur[y] = s.Start[y] + s.State[y]
	}
	if n == 1 {
		addStop(cur, s.Stop)
	}
	keep := d.keepBest(cur, width)
	for i := 1; i < n && len(keep) > 0; i++ {
		prev, cur = cur, prev
		state := s.State[i*l : (i+1)*l]
		bp := back[i*l : (i+1)*l]
		var at []float64
		if s.TransAt != nil {
			at = s.TransAt[(i-1)*l*l : i*l*l]
		}
		// Predecessor-major, so that each kept label reads its row of
		// transitions in order; p ascends and only a strictly greater
		// score replaces, so ties go to the lowest predecessor.
		for y := range cur {
			cur[y], bp[y] = math.Inf(-1), 0
		}
		for _, p := range keep {
			pv := prev[p]
			row := s.Trans[int(p)*l : int(p+1)*l]
			row = row[:len(cur)]
			if at != nil {
				atRow := at[int(p)*l : int(p+1)*l]
				atRow = atRow[:len(cur)]
				for y, t := range row {
					if v := pv + (t + atRow[y]); v > cur[y] {
						cur[y], bp[y] = v, p
					}
				}
				continue
			}
			for y, t := range row {
				if v := pv + t; v > cur[y] {
					cur[y], bp[y] = v, p
				}
			}
		}
		for y, st := range state {
			cur[y] += st
		}
		if i == n-1 {
			addStop(cur, s.Stop)
		}
		keep = d.keepBest(cur, width)
	}
	if len(keep) == 0 {
		return math.Inf(-1)
	}
	// keep is in label order; the best of it, ties to the lowest label.
	best, arg := math.Inf(-1), int32(0)
	for _, y := range keep {
		if v := cur[y]; v > best {
			best, arg = v, y
		}
	}
	dst[n-1] = arg
	for i := n - 1; i > 0; i-- {
		dst[i-1] = back[i*l+int(dst[i])]
	}
	return best
}

func addStop(x, stop []float64) {
	for y := range x {
		x[y] += stop[y]
	}
}

// keepBest returns, in increasing label order, the width labels of
// largest score (ties to the lowest label), leaving out -Inf ones. It
// alternates between two buffers so that the previous position's list
// stays valid while the next is built.
func (d *Decoder) keepBest(score []float64, width int) []int32 {
	// rank: insertion into a list sorted best first, cut at width. An
	// equal score goes after the ones already there, which have lower
	// labels.
	rank := d.rank[:0]
	for y, v := range score {
		if !(v > math.Inf(-1)) { // -Inf or NaN: never kept
			continue
		}
		if len(rank) == width && !(v > score[rank[width-1]]) {
			continue
		}
		if len(rank) < width {
			rank = append(rank, 0)
		}
		k := len(rank) - 1
		for k > 0 && v > score[rank[k-1]] {
			rank[k] = rank[k-1]
			k--
		}
		rank[k] = int32(y)
	}
	d.rank = rank
	out := d.nextKeep[:0]
	out = append(out, rank...)
	// Increasing label order, so that predecessors are visited in the
	// order Viterbi visits them (insertion sort: width is small).
	for j := 1; j < len(out); j++ {
		for k := j; k > 0 && out[k] < out[k-1]; k-- {
			out[k], out[k-1] = out[k-1], out[k]
		}
	}
	d.nextKeep, d.prevKeep = d.prevKeep, out
	return out
}

// Posterior writes into dst the sequence that maximizes the product of
// the state marginals P(y_i | x) among the sequences the constraints
// allow, and returns the sum of its log marginals (-Inf when every
// sequence is forbidden). The constraints are read from s as its -Inf
// Trans, TransAt, Start and Stop entries; the sequence is found by Viterbi over
// the log marginals with transitions 0 where allowed and -Inf where not.
// Without -Inf entries that is the per-token argmax of the marginals
// (ties to the lowest label), which this computes directly.
//
// This is minimum-risk decoding for the Hamming loss: it maximizes the
// expected number of correct tokens, where Viterbi maximizes the
// probability of the whole sequence being right.
func (d *Decoder) Posterior(dst []int32, s *Scores) float64 {
	d.ws.checkL(s)
	n, l := s.N, s.L
	if len(dst) != n {
		panic("lattice: Posterior dst length differs from N")
	}
	if n == 0 {
		return 0
	}
	if math.IsInf(d.ws.ForwardBackward(s), -1) {
		return math.Inf(-1)
	}
	if cap(d.logMarg) < n*l {
		d.logMarg = make([]float64, 2*n*l)
	}
	lm := d.logMarg[:n*l]
	d.ws.StateMarginals(lm)
	var stateMarg []float64
	if d.States > 1 {
		stateMarg = append(d.stateMarg[:0], lm...)
		d.stateMarg = stateMarg
		sumGroups(lm, d.States)
	}
	for k, p := range lm {
		lm[k] = math.Log(p)
	}
	var total float64
	if !d.prepareMask(s) {
		for i := 0; i < n; i++ {
			row := lm[i*l : (i+1)*l]
			best, arg := math.Inf(-1), int32(0)
			for y, v := range row {
				if v > best {
					best, arg = v, int32(y)
				}
			}
			dst[i] = arg
			total += best
		}
	} else {
		d.post.N, d.post.State = n, lm
		total = d.ws.Viterbi(dst, &d.post)
	}
	if stateMarg != nil && !math.IsInf(total, -1) {
		mostProbableStates(dst, s, stateMarg, d.States)
	}
	return total
}

// mostProbableStates replaces, left to right, each state of path by the
// state of the same label with the largest marginal (ties to the lowest)
// where s allows that state beside its neighbours as they stand. The
// labels, and so the decoding, do not change; the states do, from the
// arbitrary first state of each label (the sums tie) to the ones that
// explain the decision (trellis explain names them and scores their path).
func mostProbableStates(path []int32, s *Scores, marg []float64, k int) {
	l := s.L
	for i, y := range path {
		first := y - y%int32(k)
		best := y
		for c := first; c < first+int32(k); c++ {
			if marg[i*l+int(c)] > marg[i*l+int(best)] && stateAllowed(s, path, i, c) {
				best = c
			}
		}
		path[i] = best
	}
}

// stateAllowed reports whether state c at position i is allowed beside
// path's neighbours by s's start, stop and transition scores.
func stateAllowed(s *Scores, path []int32, i int, c int32) bool {
	n := len(path)
	if i == 0 && math.IsInf(s.Start[c], -1) || i == n-1 && math.IsInf(s.Stop[c], -1) {
		return false
	}
	if i > 0 && math.IsInf(s.trans(i, int(path[i-1]), int(c)), -1) {
		return false
	}
	return i == n-1 || !math.IsInf(s.trans(i+1, int(c), int(path[i+1])), -1)
}

// sumGroups replaces each entry of every group of k consecutive entries of
// x by the group's sum.
func sumGroups(x []float64, k int) {
	for g := 0; g+k <= len(x); g += k {
		sum := 0.0
		for _, v := range x[g : g+k] {
			sum += v
		}
		for j := g; j < g+k; j++ {
			x[j] = sum
		}
	}
}

// prepareMask sets d.post's transitions, start and stop to 0 where s's
// are allowed and -Inf where they are -Inf, and reports whether any is.
// A -Inf in s.TransAt forbids that bigram at that position only: d.post
// then carries the masked per-position block too (nil when s.TransAt
// forbids nothing, so that Viterbi keeps its faster shared-transition
// pass). A second-order s gives d.post its structure and masked trigram
// scores, and always reports true: its structure forbids the unseen
// trigrams.
func (d *Decoder) prepareMask(s *Scores) bool {
	l := d.l
	if d.mask == nil {
		d.mask = make([]float64, l*l+2*l)
		d.maskTrans, d.maskStart = d.mask[:l*l], d.mask[l*l:l*l+l]
		d.post = Scores{L: l, Trans: d.maskTrans, Start: d.maskStart, Stop: d.mask[l*l+l:]}
	}
	a := mask(d.maskTrans, s.Trans)
	b := mask(d.maskStart, s.Start)
	c := mask(d.post.Stop, s.Stop)
	d.post.TransAt = nil
	d.post.Order2, d.post.Trigram = s.Order2, nil
	if s.Order2 != nil {
		// A second-order lattice allows only the label trigrams seen in
		// training: the path must be one of its paths whatever the
		// bigram constraints, so the search always runs, over the same
		// structure with the trigram scores masked like the others.
		d.maskTri = slices.Grow(d.maskTri[:0], len(s.Trigram))[:len(s.Trigram)]
		mask(d.maskTri, s.Trigram)
		d.post.Trigram = d.maskTri
		a = true
	}
	if s.TransAt != nil {
		size := max(s.N-1, 0) * l * l
		if cap(d.maskAt) < size {
			d.maskAt = make([]float64, size)
		}
		if mask(d.maskAt[:size], s.TransAt[:size]) {
			d.post.TransAt = d.maskAt[:size]
			return true
		}
	}
	return a || b || c
}

// mask sets dst[k] to -Inf where src[k] is -Inf and to 0 elsewhere, and
// reports whether any entry is -Inf.
func mask(dst, src []float64) bool {
	forbidden := false
	for k, v := range src {
		dst[k] = 0
		if math.IsInf(v, -1) {
			dst[k] = math.Inf(-1)
			forbidden = true
		}
	}
	return forbidden
}
