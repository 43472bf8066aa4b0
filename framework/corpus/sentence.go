package corpus

// Sentence is one sequence as read from a corpus file: a table of string
// columns, one row per token, plus the raw lines needed to write the sentence
// back out unchanged with a predicted label appended.
type Sentence struct {
	// Tokens[i][c] is the value of column c (in Format.Columns order) for
	// token i. A column that is absent from the input (an unlabelled file
	// read for tagging) holds "".
	Tokens [][]string

	// Lines are all lines of the file that belong to this sentence, in file
	// order, without their line terminator: token lines and pass-through
	// lines (CoNLL-U comments, multiword-token ranges, empty nodes).
	// TokenLine[i] is the index in Lines of token i's line. For the
	// character format Lines holds the one text line and TokenLine is nil.
	Lines     []string
	TokenLine []int

	// File and Line locate the sentence's first line (1-based) for error
	// messages; TokenLineNo[i] is the 1-based file line of token i (for the
	// character format, the line number of the text line for every token).
	File        string
	Line        int
	TokenLineNo []int

	// DocStart is true for the first sentence after a document boundary
	// (a CoNLL "-DOCSTART-" line, or "# newdoc" in CoNLL-U).
	DocStart bool
	// DocLine is the CoNLL "-DOCSTART-" line before the sentence, as read
	// (without its terminator), which the writer puts back; "" if none.
	DocLine string
	// Document is the 0-based number of the sentence's document in its
	// file: it grows by one at every document boundary after the file's
	// first sentence, so a file without boundaries is one document (0).
	// File and Document together identify a document (SameDocument).
	Document int

	// The slices a Recycler reuses for a later sentence, whole, and the
	// builder they came from (nil when the sentence was not read by one).
	pool  sentencePool
	owner *blockBuilder
}

// sentencePool is the backing of a read sentence's slices: strs holds its
// Lines then its cells, rows its Tokens, ints its TokenLine then its
// TokenLineNo.
type sentencePool struct {
	strs []string
	rows [][]string
	ints []int
}

// Len returns the number of tokens.
func (s *Sentence) Len() int { return len(s.Tokens) }

// Column returns token i's value of column c.
func (s *Sentence) Column(i, c int) string { return s.Tokens[i][c] }

// SameDocument reports whether a and b belong to the same document: the
// same file and the same document number in it.
func SameDocument(a, b *Sentence) bool {
	return a.Document == b.Document && a.File == b.File
}

// GroupDocuments splits sents into documents, in order of first
// appearance: each group holds the sentences of one document in the order
// of sents. Sentences of a document need not be adjacent (a fold of a
// corpus holds some sentences of each document); the grouping is by
// (File, Document) through a map, in time linear in len(sents).
func GroupDocuments(sents []*Sentence) [][]*Sentence {
	type key struct {
		file string
		doc  int
	}
	var groups [][]*Sentence
	index := map[key]int{}
	for k, s := range sents {
		// Adjacent sentences of one document, the usual case, skip the map.
		if k > 0 && SameDocument(sents[k-1], s) {
			groups[len(groups)-1] = append(groups[len(groups)-1], s)
			continue
		}
		id := key{s.File, s.Document}
		g, ok := index[id]
		if !ok {
			g = len(groups)
			index[id] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], s)
	}
	return groups
}
