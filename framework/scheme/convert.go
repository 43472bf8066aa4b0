package scheme

// label joins a prefix and a type; untyped chunks get a bare prefix so that
// Split gives back exactly what went in.
func label(prefix, typ string) string {
	if typ == "" {
		return prefix
	}
	return prefix + "-" + typ
}

// Convert appends to dst the labels of the same chunks re-encoded in scheme
// to, reading labels in scheme from, and returns the extended slice. Tokens
// outside every chunk become "O", so ill-formed input comes out well-formed
// with the chunks conlleval would have counted. Convert only re-encodes
// between span schemes (IOB1, IOB2, BIOES); for any other pair, and when
// from equals to, labels are copied unchanged.
func Convert(dst, labels []string, from, to Scheme) []string {
	if from == to || !from.HasSpans() || !to.HasSpans() {
		return append(dst, labels...)
	}
	base := len(dst)
	for range labels {
		dst = append(dst, "O")
	}
	out := dst[base:]
	var buf [16]Chunk
	chunks := Chunks(buf[:0], labels, from)
	for k, c := range chunks {
		switch to {
		case IOB1:
			// B-X is only needed where I-X would merge with a chunk of the
			// same type ending right before.
			first := "I"
			if k > 0 && chunks[k-1].End == c.Start && chunks[k-1].Type == c.Type {
				first = "B"
			}
			out[c.Start] = label(first, c.Type)
			for i := c.Start + 1; i < c.End; i++ {
				out[i] = label("I", c.Type)
			}
		case IOB2:
			out[c.Start] = label("B", c.Type)
			for i := c.Start + 1; i < c.End; i++ {
				out[i] = label("I", c.Type)
			}
		case BIOES:
			if c.End-c.Start == 1 {
				out[c.Start] = label("S", c.Type)
				continue
			}
			out[c.Start] = label("B", c.Type)
			for i := c.Start + 1; i < c.End-1; i++ {
				out[i] = label("I", c.Type)
			}
			out[c.End-1] = label("E", c.Type)
		}
	}
	return dst
}
