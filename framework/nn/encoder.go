// encoder.go holds Encoder, the BiLSTM-CNN composition that turns a
// sentence into per-token label scores (word and column embeddings and the
// char CNN, concatenated → dropout → BiLSTM → dropout → Linear), its
// per-goroutine Workspace, and its analytic FLOP count.

package nn

import (
	"fmt"
	"math/rand/v2"
)

// Column is an extra input column embedded next to the words (POS tags,
// chunk tags, …).
type Column struct {
	// Name names the table, parameter "extra.<Name>"; non-empty, unique.
	Name string
	// Size is the number of IDs, 0 … Size−1.
	Size int
	// Dim is the embedding width.
	Dim int
}

// EncoderConfig sizes an Encoder. Zero sizes take the defaults given,
// which are Ma & Hovy's (2016) and Lample et al.'s (2016) sizes.
type EncoderConfig struct {
	// Words is the word vocabulary size V (IDs 0 … V−1). Required.
	Words int
	// WordDim is the word embedding width. Zero means 100.
	WordDim int
	// Extra lists extra embedded columns, in input order.
	Extra []Column
	// Chars is the character vocabulary size. Zero means no character
	// encoder.
	Chars int
	// CharKind is the character encoder: CharKindCNN (the zero value) or
	// CharKindLSTM.
	CharKind CharKind
	// CharDim is the character embedding width. Zero means 30.
	CharDim int
	// CharFilters is the number of CNN filters, F. Zero means 30.
	CharFilters int
	// CharWindow is the CNN window width. Zero means 3.
	CharWindow int
	// CharHidden is the char LSTM's units per direction. Zero means 25
	// (Lample et al.).
	CharHidden int
	// Hidden is the LSTM units per direction, H. Zero means 100.
	Hidden int
	// Layers is the number of BiLSTM layers. Zero means 1.
	Layers int
	// Labels is the number of labels, the width of the scores. Required.
	Labels int
	// InputDropout is the dropout probability on the concatenated token
	// vectors during training, in [0, 1). Zero means none; both papers
	// use 0.5.
	InputDropout float64
	// OutputDropout is the dropout probability on the BiLSTM output during
	// training, in [0, 1). Zero means none (Ma & Hovy use 0.5).
	OutputDropout float64
	// Transitions adds a second output layer, label-bigram scores read
	// from each token's BiLSTM output: a CRF whose transitions depend on
	// the input, ψ(y_i, y_{i-1}) = w_{y_i,y_{i-1}}·h_i (TransScores).
	Transitions bool
}

// CharKind is which character encoder an Encoder has.
type CharKind int

const (
	// CharKindCNN is CharCNN (Ma & Hovy 2016).
	CharKindCNN CharKind = iota
	// CharKindLSTM is CharLSTM (Lample et al. 2016).
	CharKindLSTM
)

// charWidth is the width of the character encoder's output.
func (c EncoderConfig) charWidth() int {
	switch {
	case c.Chars == 0:
		return 0
	case c.CharKind == CharKindLSTM:
		return 2 * c.CharHidden
	}
	return c.CharFilters
}

// resolve fills the defaults and checks the config.
func (c EncoderConfig) resolve() (EncoderConfig, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.WordDim, 100)
	def(&c.CharDim, 30)
	def(&c.CharFilters, 30)
	def(&c.CharWindow, 3)
	def(&c.CharHidden, 25)
	def(&c.Hidden, 100)
	def(&c.Layers, 1)
	switch {
	case c.CharKind != CharKindCNN && c.CharKind != CharKindLSTM:
		return c, fmt.Errorf("nn: unknown character encoder %d", c.CharKind)
	case c.Words <= 0 || c.Labels <= 0:
		return c, fmt.Errorf("nn: encoder needs Words > 0 and Labels > 0, have %d and %d", c.Words, c.Labels)
	case c.WordDim < 0 || c.Chars < 0 || c.CharDim < 0 || c.CharFilters < 0 || c.CharWindow < 0 || c.CharHidden < 0 || c.Hidden < 0 || c.Layers < 0:
		return c, fmt.Errorf("nn: encoder sizes must not be negative: %+v", c)
	case c.InputDropout < 0 || c.InputDropout >= 1 || c.OutputDropout < 0 || c.OutputDropout >= 1:
		return c, fmt.Errorf("nn: encoder dropout must be in [0, 1), have %v and %v", c.InputDropout, c.OutputDropout)
	}
	seen := map[string]bool{}
	for i, col := range c.Extra {
		if col.Name == "" || seen[col.Name] || col.Size <= 0 || col.Dim <= 0 {
			return c, fmt.Errorf("nn: encoder column %d (%q): needs a unique non-empty name, Size > 0 and Dim > 0", i, col.Name)
		}
		seen[col.Name] = true
	}
	c.Extra = append([]Column(nil), c.Extra...)
	return c, nil
}

// NumParams is the number of weights NewEncoder(c) would allocate,
// counted without allocating them, so that a reader can refuse a
// configuration larger than the weights that come with it (a corrupted
// model file). It must follow NewEncoder's layout (TestNumParams).
func (c EncoderConfig) NumParams() (int64, error) {
	c, err := c.resolve()
	if err != nil {
		return 0, err
	}
	n := int64(c.Words) * int64(c.WordDim)
	din := int64(c.WordDim)
	for _, col := range c.Extra {
		n += int64(col.Size) * int64(col.Dim)
		din += int64(col.Dim)
	}
	switch {
	case c.Chars > 0 && c.CharKind == CharKindLSTM:
		hc := int64(c.CharHidden)
		n += int64(c.Chars)*int64(c.CharDim) + 2*(4*hc*int64(c.CharDim)+4*hc*hc+4*hc)
	case c.Chars > 0:
		n += int64(c.Chars)*int64(c.CharDim) + int64(c.CharFilters)*int64(c.CharWindow*c.CharDim) + int64(c.CharFilters)
	}
	din += int64(c.charWidth())
	h, labels := int64(c.Hidden), int64(c.Labels)
	for l := range c.Layers {
		in := din
		if l > 0 {
			in = 2 * h
		}
		n += 2 * (4*h*in + 4*h*h + 4*h)
	}
	n += 2*h*labels + labels
	if c.Transitions {
		n += 2*h*labels*labels + labels*labels
	}
	return n, nil
}

// Encoder is the BiLSTM-CNN encoder. Its parameters, in the order Params
// holds, initialises and serialises them, are: "word"; "extra.<Name>" for
// each column in order; "char.emb", "char.filter", "char.bias" when Chars
// > 0 (a char LSTM: "char.emb", then "char.fwd.Wx", ".Wh", ".b" and the
// same for "char.bwd"); for each BiLSTM layer l, "lstm.l<l>.fwd.Wx", ".Wh", ".b" then the
// same for ".bwd"; "out.W", "out.b"; with Transitions, "trans.W",
// "trans.b".
//
// The token vector at position t is [word | extra columns… | chars], Din
// = WordDim + Σ Extra Dim + the character encoder's width (CharFilters, or
// 2·CharHidden for the LSTM; only when Chars > 0).
type Encoder[T Float] struct {
	// Config is the resolved configuration (defaults filled in).
	Config EncoderConfig
	// Params holds every parameter, in the order above.
	Params *Params[T]
	// Word embeds word IDs; Word.SetRows loads pretrained vectors.
	Word *Embedding[T]
	// Extra embeds the extra columns, in Config.Extra order.
	Extra []*Embedding[T]
	// Char is the char CNN, CharLSTM the char LSTM; at most one is set
	// (Config.CharKind), neither when Config.Chars is 0.
	Char     *CharCNN[T]
	CharLSTM *CharLSTM[T]
	// LSTM is the BiLSTM stack, reading [n][Din].
	LSTM *BiLSTM[T]
	// Out maps the [n][2H] BiLSTM output to [n][Labels] scores.
	Out *Linear[T]
	// Trans, with Config.Transitions, maps it to [n][Labels²] label-bigram
	// scores; nil otherwise.
	Trans *Linear[T]
	// InDrop and OutDrop are the two dropouts.
	InDrop, OutDrop Dropout[T]
	// Din is the token vector width.
	Din int
}

// NewEncoder builds an encoder with every weight zero: call
// e.Params.Init(rng) to initialise it, or e.Params.ReadFrom to load one.
func NewEncoder[T Float](cfg EncoderConfig) (*Encoder[T], error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	ps := &Params[T]{}
	e := &Encoder[T]{Config: cfg, Params: ps}
	e.Word = NewEmbedding(ps, "word", cfg.Words, cfg.WordDim)
	e.Din = cfg.WordDim
	for _, col := range cfg.Extra {
		e.Extra = append(e.Extra, NewEmbedding(ps, "extra."+col.Name, col.Size, col.Dim))
		e.Din += col.Dim
	}
	switch {
	case cfg.Chars > 0 && cfg.CharKind == CharKindLSTM:
		e.CharLSTM = NewCharLSTM(ps, "char", cfg.Chars, cfg.CharDim, cfg.CharHidden)
	case cfg.Chars > 0:
		e.Char = NewCharCNN(ps, "char", cfg.Chars, cfg.CharDim, cfg.CharFilters, cfg.CharWindow)
	}
	e.Din += cfg.charWidth()
	e.LSTM = NewBiLSTM(ps, "lstm", e.Din, cfg.Hidden, cfg.Layers)
	e.Out = NewLinear(ps, "out", 2*cfg.Hidden, cfg.Labels)
	if cfg.Transitions {
		e.Trans = NewLinear(ps, "trans", 2*cfg.Hidden, cfg.Labels*cfg.Labels)
	}
	e.InDrop = Dropout[T]{P: cfg.InputDropout}
	e.OutDrop = Dropout[T]{P: cfg.OutputDropout}
	return e, nil
}

// Sentence is an Encoder's input for one sentence of n tokens.
type Sentence struct {
	// Words holds the n word IDs.
	Words []int32
	// Extra holds one slice of n IDs per Config.Extra column, in order.
	Extra [][]int32
	// Chars holds each token's character IDs (n slices; an empty slice is
	// allowed). Ignored when the encoder has no character encoder.
	Chars [][]int32
}

// check returns an error when s does not fit e.
func (e *Encoder[T]) check(s *Sentence) error {
	n := len(s.Words)
	if err := checkIDs("word", s.Words, e.Config.Words); err != nil {
		return err
	}
	if len(s.Extra) != len(e.Extra) {
		return fmt.Errorf("nn: sentence has %d extra columns, encoder %d", len(s.Extra), len(e.Extra))
	}
	for i, ids := range s.Extra {
		if len(ids) != n {
			return fmt.Errorf("nn: sentence column %q has %d IDs for %d words", e.Config.Extra[i].Name, len(ids), n)
		}
		if err := checkIDs(e.Config.Extra[i].Name, ids, e.Config.Extra[i].Size); err != nil {
			return err
		}
	}
	if e.Config.Chars == 0 {
		return nil
	}
	if len(s.Chars) != n {
		return fmt.Errorf("nn: sentence has characters for %d words, %d words", len(s.Chars), n)
	}
	for _, w := range s.Chars {
		if err := checkIDs("character", w, e.Config.Chars); err != nil {
			return err
		}
	}
	return nil
}

func checkIDs(what string, ids []int32, size int) error {
	for t, id := range ids {
		if id < 0 || int(id) >= size {
			return fmt.Errorf("nn: %s ID %d at %d outside [0, %d)", what, id, t, size)
		}
	}
	return nil
}

// Workspace is one goroutine's state for an Encoder: every layer's cache
// and its own gradient accumulators. The Encoder's weights are only read
// through it, so any number of Workspaces may run Forward and Backward at
// once; a Workspace itself is not safe for concurrent use. Its buffers
// grow to the longest sentence, after which Forward and Backward allocate
// nothing.
type Workspace[T Float] struct {
	e      *Encoder[T]
	grads  *Grads[T]
	n      int
	ready  bool
	word   EmbeddingCache[T]
	extra  []EmbeddingCache[T]
	char   CharCNNCache[T]
	charL  CharLSTMCache[T]
	inDrop DropoutCache[T]
	lstm   BiLSTMCache[T]
	drop   DropoutCache[T]
	out    LinearCache[T]
	trans  LinearCache[T]
	dh     []T // [n][2H]: the two heads' gradients summed (Transitions)
	x0     []T // [n][Din]: row [t] is token t's vector [word | extra… | chars]
	part   []T // [n][width of one input block]: scratch for Backward
}

// NewWorkspace returns a Workspace with zero gradient accumulators.
func (e *Encoder[T]) NewWorkspace() *Workspace[T] {
	return &Workspace[T]{e: e, grads: e.Params.NewGrads(), extra: make([]EmbeddingCache[T], len(e.Extra))}
}

// Grads returns the Workspace's gradient accumulators, which Backward adds
// to: pass them to Params.Reduce.
func (w *Workspace[T]) Grads() *Grads[T] { return w.grads }

// Forward returns the label scores of s, an [n][Labels] matrix whose
// element [t][y] is the score of label y at token t, owned by w until its
// next Forward. rng drives dropout: nil means inference (no dropout); in
// training, reseeding it per sentence (rand.PCG.Seed) makes the masks
// independent of which goroutine runs which sentence. The input dropout
// mask is drawn before the output one. An input that does not fit the
// encoder is an error, and then Backward must not be called.
func (w *Workspace[T]) Forward(s *Sentence, rng *rand.Rand) ([]T, error) {
	e := w.e
	w.ready = false
	if err := e.check(s); err != nil {
		return nil, err
	}
	n := len(s.Words)
	w.n = n
	w.x0 = grow(w.x0, n*e.Din)
	in := span{e.Din, 0}
	put := func(v []T, width int) {
		copyCols(w.x0, in, v, span{width, 0}, n, width)
		in.off += width
	}
	put(e.Word.Forward(&w.word, s.Words), e.Word.D)
	for i, emb := range e.Extra {
		put(emb.Forward(&w.extra[i], s.Extra[i]), emb.D)
	}
	if e.Char != nil {
		put(e.Char.Forward(&w.char, s.Chars), e.Char.F)
	}
	if e.CharLSTM != nil {
		put(e.CharLSTM.Forward(&w.charL, s.Chars), 2*e.CharLSTM.H)
	}
	x := e.InDrop.Forward(&w.inDrop, w.x0, rng)
	h := e.LSTM.Forward(&w.lstm, x)
	h = e.OutDrop.Forward(&w.drop, h, rng)
	w.ready = true
	if e.Trans != nil {
		e.Trans.Forward(&w.trans, h)
	}
	return e.Out.Forward(&w.out, h), nil
}

// TransScores returns the label-bigram scores of the last Forward of an
// encoder with Transitions, an [n][Labels·Labels] matrix whose element
// [t][p·Labels+c] scores the bigram p → c into token t (row 0 is
// computed but has no bigram), owned by w until its next Forward; nil
// without Transitions.
func (w *Workspace[T]) TransScores() []T {
	if w.e.Trans == nil {
		return nil
	}
	return w.trans.y
}

// BackwardTrans is Backward for an encoder with Transitions: dTrans,
// shaped as TransScores, is ∂loss/∂ of those scores; its row 0 must be
// zero (no bigram leads into the first token).
func (w *Workspace[T]) BackwardTrans(dScores, dTrans []T) {
	e, n := w.e, w.n
	if e.Trans == nil || len(dTrans) != n*e.Trans.Out {
		panic(fmt.Sprintf("nn: Workspace.BackwardTrans: %d bigram scores after a Forward of %d tokens (transitions %v)", len(dTrans), n, e.Trans != nil))
	}
	w.backward(dScores, dTrans)
}

// Backward takes dScores, an [n][Labels] matrix whose element [t][y] is
// ∂loss/∂score[t][y] for the last Forward (a CRF's marginals minus the
// gold indicators), and adds the gradient of every parameter to w's Grads.
// Calling it without a successful Forward, or with the wrong length, is a
// programmer error and panics.
func (w *Workspace[T]) Backward(dScores []T) {
	if w.e.Trans != nil {
		panic("nn: Workspace.Backward on an encoder with Transitions: use BackwardTrans")
	}
	w.backward(dScores, nil)
}

// backward is Backward and BackwardTrans.
func (w *Workspace[T]) backward(dScores, dTrans []T) {
	e, n := w.e, w.n
	if !w.ready || len(dScores) != n*e.Config.Labels {
		panic(fmt.Sprintf("nn: Workspace.Backward: %d scores after a Forward of %d tokens × %d labels (ready %v)", len(dScores), n, e.Config.Labels, w.ready))
	}
	g := w.grads
	dh := e.Out.Backward(&w.out, g, dScores)
	if e.Trans != nil {
		w.dh = append(w.dh[:0], dh...)
		addTo(e.Trans.Backward(&w.trans, g, dTrans), w.dh)
		dh = w.dh
	}
	dh = e.OutDrop.Backward(&w.drop, dh)
	dx := e.LSTM.Backward(&w.lstm, g, dh)
	dx = e.InDrop.Backward(&w.inDrop, dx)
	in := span{e.Din, 0}
	take := func(width int) []T {
		w.part = grow(w.part, n*width)
		copyCols(w.part, span{width, 0}, dx, in, n, width)
		in.off += width
		return w.part
	}
	e.Word.Backward(&w.word, g, take(e.Word.D))
	for i, emb := range e.Extra {
		emb.Backward(&w.extra[i], g, take(emb.D))
	}
	if e.Char != nil {
		e.Char.Backward(&w.char, g, take(e.Char.F))
	}
	if e.CharLSTM != nil {
		e.CharLSTM.Backward(&w.charL, g, take(2*e.CharLSTM.H))
	}
}

// FLOPsPerToken returns the floating-point operations per token of Forward
// and of Backward, for words of charsPerToken characters on average,
// counting a multiply-add as 2 and only the matrix products (the
// element-wise work — gates, tanh, dropout, copies — is O(H) per token
// against O(H²) and is left out). With Din the token width, In_l the
// width layer l reads (Din, then 2H), w the window, Dc the char width, F
// the filters and Hc the char LSTM's units:
//
//	fwd = chars                                     (the character encoder, below)
//	    + Σ_l 2 directions · (2·In_l·4H + 2·H·4H)  (input projection + recurrence)
//	    + 2·2H·Labels                               (output layer)
//	    + 2·2H·Labels²                              (with Transitions, the bigram layer)
//	bwd = 2·(fwd − chars) + charsBack
//
// A char CNN costs chars = charsPerToken·2·w·Dc·F (one window per
// character) and charsBack = 2·2·w·Dc·F (one window per word and filter,
// for K and for u); a char LSTM chars = charsPerToken·2·(2·Dc·4Hc +
// 2·Hc·4Hc) and charsBack = 2·chars (each product gives two). The
// recurrence is counted at every step though the first has no h_p.
func (e *Encoder[T]) FLOPsPerToken(charsPerToken float64) (fwd, bwd float64) {
	H, L := float64(e.Config.Hidden), float64(e.Config.Labels)
	var chars, charsBack float64
	switch {
	case e.Char != nil:
		win := float64(e.Char.W * e.Char.Dc * e.Char.F)
		chars, charsBack = charsPerToken*2*win, 4*win
	case e.CharLSTM != nil:
		dc, hc := float64(e.CharLSTM.Dc), float64(e.CharLSTM.H)
		chars = charsPerToken * 2 * (2*dc*4*hc + 2*hc*4*hc)
		charsBack = 2 * chars
	}
	var dense float64
	for _, l := range e.LSTM.Fwd {
		dense += 2 * (2*float64(l.In)*4*H + 2*H*4*H)
	}
	dense += 2 * 2 * H * L
	if e.Trans != nil {
		dense += 2 * 2 * H * L * L
	}
	return chars + dense, 2*dense + charsBack
}
