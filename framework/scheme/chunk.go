package scheme

// Chunk is a typed span of tokens [Start, End).
type Chunk struct {
	Type       string
	Start, End int
}

// endOfChunk and startOfChunk are conlleval's functions restricted to the
// prefixes B, I, E, S and O (the bracket and '.' tags of very old CoNLL
// data are not supported, except that '.' keeps its type exemption).
// Keeping their exact shape, rather than a tidier state machine, is what
// makes our phrase counts identical to conlleval's on ill-formed output.
func endOfChunk(prevTag, tag, prevType, typ string) bool {
	switch prevTag {
	case "E", "S":
		return true
	case "B", "I":
		if tag == "B" || tag == "S" || tag == "O" {
			return true
		}
	}
	return prevTag != "O" && prevTag != "." && prevType != typ
}

func startOfChunk(prevTag, tag, prevType, typ string) bool {
	switch tag {
	case "B", "S":
		return true
	case "E", "I":
		if prevTag == "E" || prevTag == "S" || prevTag == "O" {
			return true
		}
	}
	return tag != "O" && tag != "." && prevType != typ
}

// Chunks appends to dst the chunks encoded by labels and returns the
// extended slice. The scheme is accepted for symmetry with Convert and
// Allowed but does not change the decoding: like conlleval, one rule set
// reads IOB1, IOB2 and BIOES (a chunk may start with I-X after O, and a
// change of type always splits a chunk).
//
// For labels whose prefix is not B, I, E, S or O, conlleval can open a new
// phrase without closing the current one; Chunks closes it instead, so the
// spans it returns never overlap.
func Chunks(dst []Chunk, labels []string, s Scheme) []Chunk {
	_ = s
	prevTag, prevType := "O", ""
	open := false
	var cur Chunk
	for i := 0; i <= len(labels); i++ {
		tag, typ := "O", ""
		if i < len(labels) {
			tag, typ = Split(labels[i])
		}
		end := endOfChunk(prevTag, tag, prevType, typ)
		start := i < len(labels) && startOfChunk(prevTag, tag, prevType, typ)
		if open && (end || start) {
			cur.End = i
			dst = append(dst, cur)
			open = false
		}
		if start {
			cur = Chunk{Type: typ, Start: i}
			open = true
		}
		prevTag, prevType = tag, typ
	}
	return dst
}
