// Package lattice is the linear-chain core shared by every learner and by
// the tagger: Viterbi, n-best, forward-backward with log Z and marginals,
// and scheme constraints, for first-order lattices and second-order ones
// (over label pairs).
//
// A lattice scores a label sequence y of a sentence of N tokens over L
// labels as
//
//	Start[y0] + Σi State[i*L+yi] + Σi>0 trans_i[y(i-1)][yi] + Stop[y(N-1)]
//
// where trans_i[p][c] is Trans[p*L+c], plus TransAt[(i-1)*L*L+p*L+c] when
// Scores.TransAt is set. Scores are log-potentials; -Inf forbids a label
// or a bigram. All work happens in a Workspace that grows to the longest
// sentence it has seen and then never allocates again, so a Workspace per
// goroutine keeps decoding and gradient passes allocation-free. Kernels
// take their destination first (Viterbi(dst, s), StateMarginals(dst)).
//
// # One Viterbi kernel
//
// Workspace.Viterbi is the only Viterbi: the tagger, the perceptron's
// training decode and dev scoring all call it (linear.Scorer fills the
// State half of their Scores). What does not depend on the sentence —
// Trans, Start, Stop, with constraints applied — is prepared once in a
// Chain: transitions transposed, and each label's predecessors whose
// transition is not -Inf listed, so constrained labels (I-X after B-X or
// I-X only) cost two comparisons instead of L. Chain.Attach puts a chain
// into a Scores; a Scores without one is prepared by the Workspace and
// the result kept while its Trans is unchanged. Every path through the
// kernel adds and compares the same numbers in the same order, ties to
// the lowest label, so it gives the bits of the textbook algorithm
// (viterbi_test.go holds that algorithm and checks it). The scan over
// all predecessors of a label is maxPlus: on amd64 four predecessors per
// instruction, each lane keeping its best with a strict > in increasing
// order, the lanes merged preferring the higher score and then the lower
// label — the scalar scan's answer, which kernel.go keeps as the
// portable form. On a processor with AVX-512, a first-order position
// without per-position transitions is one call instead
// (viterbiStepAVX512, viterbi_amd64.s): eight labels per register, every
// predecessor in increasing order with a strict >, which again is each
// label's scalar scan; the chain takes it when it costs less than the
// lists (Chain.wide), as it does for IOB2 chunking.
//
// # Forward-backward kernels
//
// The scaled forward-backward spends its time in three L×L loops per
// position: the forward step (alpha row times the exponentiated
// transitions), the backward step (a dot product per label) and the
// accumulation of the transition expectations (an outer product per
// position, multiplied by the transitions once per sentence). They live
// in kernel.go as portable Go and, on amd64 processors with AVX, in
// kernel_amd64.s, four labels per instruction without FMA. Both forms add
// the same products in the same order — the order of the gonum calls the
// pass used before (four partial sums in the dot product) — so every
// build and both paths give the same bits and retraining gives the same
// model bytes. The exponentiated transitions are kept with rows padded
// to a multiple of four labels, and computed once for all the sentences
// that share a Trans. The state scores are exponentiated once per
// position, L exps; on amd64 with AVX2 and FMA that runs four lanes at a
// time through exp_amd64.s, the operations of math.Exp's own assembly on
// each lane (so the same bits), with math.Exp itself for the blocks off
// its main path (Inf, NaN, results near underflow).
//
// # Per-position transitions
//
// Scores.TransAt is where input-conditioned transitions plug in:
// trans_i = shared matrix + terms of position i (features of token i
// conjoined with the label bigram, linear.Model's pair features, which
// linear.Scorer.Lattice puts there). The kernel's step reads transposed
// transitions and predecessor lists, and with TransAt it is handed
// position i's (the chain's plus the block of i) instead of the chain's,
// so the inner loop is unchanged; n-best and SequenceScore read trans_i
// too. Forward-backward runs a scaled pass over per-position blocks
// (position.go): each position's transitions exponentiated into a block
// of their own, exp(Trans + TransAt_i − shift_i), with shift_i the shared
// matrix's largest entry plus the block's largest term. Input-conditioned
// terms are sparse, so an entry whose term is 0 is the shared exp(Trans)
// times one factor per block, a multiply instead of an exp; and a caller
// that builds TransAt as sums of weights may hand over exp(TransAt) as
// products of the weights' exponentials (Scores.TransAtExp, which
// linear.Scorer.ExpPairs makes the CRF's gradient pass fill), so that no
// entry needs an exp. The blocks
// serve the backward step and the pair marginals (PairMarginal,
// PairMarginals: a position's L×L marginals, which the CRF's gradient
// reads for both the transition and the pair feature weights). The pass
// without TransAt, and so its bits, is unchanged; the log-space pass is
// the fallback of both. The brute-force tests cover all of it with
// TransAt set, sparse and dense. The MEMM uses TransAt too:
// linear.Scorer.Lattice puts a locally normalized model's per-position
// normalizers there (a model cannot have both: linear.Model.Validate).
//
// # Second order
//
// A second-order model conditions yi on (y(i-2), y(i-1)): a sequence also
// scores its label trigrams (Scores.Order2, Scores.Trigram; order2.go).
// It is a first-order lattice over pair states (y(i-1), yi) — ⟨s⟩ in the
// first slot at the first token — restricted to the pairs and trigrams
// the model saw in training, so that each step is a sweep of a list of
// edges (a, b) → (b, c), one per trigram, and a pass costs positions ×
// seen trigrams rather than positions × L³ (or L⁴ over dense pairs). An
// edge's weight is its trigram's score plus the bigram (b, c)'s
// transition into the position — Trans, and TransAt when set, so
// input-conditioned transitions combine with second order as they are
// — and its target adds State[i][c]. Viterbi, n-best and the
// forward-backward (scaled, reusing the first-order pass's exponentiated
// transitions; the log-space pass as its fallback) run over the pair
// states when Order2 is set, behind the same Workspace methods; label
// marginals are sums of pair-state marginals, a position's bigram
// marginals are its pair states' own, and AddTrigramMarginals gives the
// trigram expectations of a CRF gradient. Constraints drop the trigrams
// whose bigrams they forbid. The Decoder's greedy and beam search read
// the first-order scores only; the tagger does not run them on a
// second-order model.
//
// # Other decoders
//
// Decoder (decode.go) picks a sequence other ways over the same Scores:
// greedy (each label the best after the one before), beam search (the N
// best labels per position, each with its best path: partial paths that
// end alike are recombined as in Viterbi, so width 1 is greedy and a
// width of L or more is Viterbi, bit for bit) and posterior (the
// sequence of largest marginals among those the -Inf entries allow:
// Viterbi over log marginals with 0/-Inf transitions, the per-token
// argmax when nothing is forbidden).
package lattice
