package corpus

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fuzz targets check that readers never panic, fail only with *Error
// values placed inside the input, return well-formed sentences, and that
// what the writers produce reads back to the same tokens.
//
// Run one with: go test -run=XXX -fuzz=FuzzReadCoNLL -fuzztime=20s ./framework/corpus/
// Seeds are below and in testdata/fuzz/<FuzzName>/.

// fuzzRead reads input to the end and checks every sentence and error.
func fuzzRead(t *testing.T, f Format, input string, opts ReadOptions) []*Sentence {
	t.Helper()
	lines := strings.Count(input, "\n") + 1
	r := f.NewReader(strings.NewReader(input), "fuzz", opts)
	ncol := len(f.Columns())
	var sents []*Sentence
	for {
		s, err := r.Read()
		if err == io.EOF {
			return sents
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, not *Error", err, err)
			}
			if e.File != "fuzz" || e.Line < 1 || e.Line > lines {
				t.Fatalf("error %v is outside the %d-line input", err, lines)
			}
			if _, err2 := r.Read(); err2 != err {
				t.Fatalf("error not sticky: %v then %v", err, err2)
			}
			return nil
		}
		if len(sents) > lines {
			t.Fatalf("more sentences than lines (%d)", lines)
		}
		checkSentence(t, f, s, ncol, lines)
		sents = append(sents, s)
	}
}

func checkSentence(t *testing.T, f Format, s *Sentence, ncol, lines int) {
	t.Helper()
	if s.Len() == 0 {
		t.Fatalf("empty sentence at line %d", s.Line)
	}
	if s.File != "fuzz" || s.Line < 1 || s.Line > lines {
		t.Fatalf("sentence at %s:%d, input has %d lines", s.File, s.Line, lines)
	}
	if len(s.TokenLineNo) != s.Len() {
		t.Fatalf("%d TokenLineNo for %d tokens", len(s.TokenLineNo), s.Len())
	}
	for _, line := range s.Lines {
		if !utf8.ValidString(line) || strings.ContainsAny(line, "\n") {
			t.Fatalf("bad line %q", line)
		}
	}
	if f.Name() == NameChars || f.Name() == NameRawtext {
		if s.TokenLine != nil || len(s.Lines) != 1 {
			t.Fatalf("chars sentence with TokenLine %v, %d lines", s.TokenLine, len(s.Lines))
		}
	} else if len(s.TokenLine) != s.Len() {
		t.Fatalf("%d TokenLine for %d tokens", len(s.TokenLine), s.Len())
	}
	for i, row := range s.Tokens {
		if len(row) != ncol {
			t.Fatalf("token %d has %d columns, want %d", i, len(row), ncol)
		}
		if s.TokenLineNo[i] < s.Line || i > 0 && s.TokenLineNo[i] < s.TokenLineNo[i-1] {
			t.Fatalf("TokenLineNo %v out of order (sentence line %d)", s.TokenLineNo, s.Line)
		}
		if s.TokenLine != nil {
			k := s.TokenLine[i]
			if k < 0 || k >= len(s.Lines) || i > 0 && k < s.TokenLine[i-1] {
				t.Fatalf("TokenLine %v out of range for %d lines", s.TokenLine, len(s.Lines))
			}
		}
	}
}

// rowsOf returns the tokens of sents, each row joined by NUL.
func rowsOf(sents []*Sentence) []string {
	var rows []string
	for _, s := range sents {
		for _, row := range s.Tokens {
			rows = append(rows, strings.Join(row, "\x00"))
		}
	}
	return rows
}

func constLabels(s *Sentence) []string { return labelsOf(s, -1) }

func fuzzWrite(t *testing.T, f Format, sents []*Sentence, labels func(*Sentence) []string) string {
	t.Helper()
	var b strings.Builder
	w := f.NewWriter(&b)
	for _, s := range sents {
		if err := w.Write(s, labels(s)); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	return b.String()
}

var fuzzSeparators = []string{"", "\t", " "}

func FuzzReadCoNLL(f *testing.F) {
	for _, seed := range []string{
		"Confidence NN B-NP\nin IN B-PP\n\nthe DT B-NP\n",
		"-DOCSTART- -X- O O\n\nEU NNP I-NP\r\nrejects VBZ I-VP\r\n",
		"\ufeffa\tb\tc\n\n\n  \nd e f  ",
		"a b\nc d e f\n",
		"a b c\n-DOCSTART-\nd e f",
		"a\xffb c d\n",
		"\ta\t\tb\n",
	} {
		for sep := range fuzzSeparators {
			f.Add(seed, false, uint8(sep))
		}
		f.Add(seed, true, uint8(0))
	}
	f.Fuzz(func(t *testing.T, input string, labelOptional bool, sep uint8) {
		cfg := Config{Name: "conll", Columns: []string{"word", "pos", "chunk"}, Label: "chunk", Separator: fuzzSeparators[int(sep)%len(fuzzSeparators)]}
		format := mustNew(t, cfg)
		sents := fuzzRead(t, format, input, ReadOptions{LabelOptional: labelOptional})
		out := fuzzWrite(t, format, sents, constLabels)
		if strings.HasPrefix(out, "\ufeff") {
			return // a BOM that was data would be stripped on reading the output
		}
		// The output, read with one more column, has the same tokens plus
		// the prediction.
		cfg.Columns = append(cfg.Columns, "pred")
		cfg.Label = "pred"
		again, err := readString(mustNew(t, cfg), out, ReadOptions{})
		if err != nil {
			if labelOptional {
				return // a missing label makes the output short of a column
			}
			t.Fatalf("reading the output: %v\noutput %q", err, out)
		}
		var want []string
		for _, s := range sents {
			for _, row := range s.Tokens {
				want = append(want, strings.Join(append(slices.Clone(row), "P"), "\x00"))
			}
		}
		if got := rowsOf(again); !slices.Equal(got, want) {
			t.Fatalf("output reads back differently\n got %q\nwant %q\noutput %q", got, want, out)
		}
	})
}

func FuzzReadCoNLLU(f *testing.F) {
	w := func(id string) string { return tsv(id, "form", "lemma", "NOUN", "NN", "_", "0", "root", "_", "_") }
	for _, seed := range []string{
		"# newdoc id = d\n# text = a b\n" + w("1") + "\n" + w("1-2") + "\n" + w("2") + "\n\n",
		"\ufeff" + w("1") + "\r\n" + w("1.1") + "\r\n\r\n# only a comment\n\n" + w("1"),
		w("x") + "\n",
		"1 form lemma NOUN NN _ 0 root _ _\n",
		w("1") + "\tmore\n",
		"#\n\n#newdoc\n" + w("01") + "\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		format := mustNew(t, Config{Name: "conllu", Label: "upos"})
		sents := fuzzRead(t, format, input, ReadOptions{})
		out := fuzzWrite(t, format, sents, constLabels)
		if strings.HasPrefix(out, "\ufeff") {
			return
		}
		// Taking the prediction off every token line gives text that reads
		// back to the same tokens.
		var b strings.Builder
		for _, line := range strings.SplitAfter(out, "\n") {
			if fields := strings.Split(strings.TrimSuffix(line, "\n"), "\t"); len(fields) == 11 && fields[10] == "P" && conlluIDKind([]byte(fields[0])) == wordID {
				line = strings.TrimSuffix(line, "\tP\n") + "\n"
			}
			b.WriteString(line)
		}
		again, err := readString(format, b.String(), ReadOptions{})
		if err != nil {
			t.Fatalf("reading the output: %v\noutput %q", err, out)
		}
		if got, want := rowsOf(again), rowsOf(sents); !slices.Equal(got, want) {
			t.Fatalf("output reads back differently\n got %q\nwant %q", got, want)
		}
	})
}

// FuzzReadRawtext: documents read from CoNLL-U are well formed, their
// rows spell their text, their labels read back to their gold tokens and
// sentences, and the writer takes them.
func FuzzReadRawtext(f *testing.F) {
	w := func(id, form string) string { return tsv(id, form, "_", "_", "_", "_", "0", "root", "_", "_") }
	for _, seed := range []string{
		"# newdoc\n# text = I don't.\n" + w("1", "I") + "\n" + w("2-3", "don't") + "\n" + w("2", "do") + "\n" + w("3", "n't") + "\n" + w("4", ".") + "\n\n",
		"# text = a  b\n" + w("1", "a") + "\n" + w("2", "b") + "\n\n# text = c\n" + w("1", "c") + "\n",
		"# text = del\n" + w("1-2", "del") + "\n" + w("1", "de") + "\n" + w("2", "el") + "\n\n",
		"# text = x\n" + w("1", "y") + "\n\n",
		w("1", "a") + "\n\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		format := mustNew(t, Config{Name: NameRawtext, Label: "label"})
		sents := fuzzRead(t, format, input, ReadOptions{})
		for _, s := range sents {
			text := []rune(s.Lines[0])
			labels := make([]string, s.Len())
			if len(text) != s.Len() {
				t.Fatalf("%d rows for the %d characters of %q", s.Len(), len(text), s.Lines[0])
			}
			for i, row := range s.Tokens {
				if c := string(text[i]); row[0] != c && !(row[0] == " " && IsTextSpace(text[i])) {
					t.Fatalf("row %d is %q, the text has %q", i, row[0], c)
				}
				labels[i] = row[3]
			}
			tokens, _ := TextSpans(labels)
			for _, tok := range tokens {
				if tok.Start < 0 || tok.End > len(text) || tok.End <= tok.Start {
					t.Fatalf("token %v outside the %d characters", tok, len(text))
				}
			}
		}
		fuzzWrite(t, format, sents, func(s *Sentence) []string { return labelsOf(s, 3) })
	})
}

func FuzzReadSlash(f *testing.F) {
	for _, seed := range []string{
		"The/DT cat/NN ./.\nIt/PRP sat/VBD\n",
		"1/2/CD and/or/CC //SYM a\\/b/NN\r\n\r\n",
		"\ufeff  x/Y \t z/W  ",
		"a/X b\n",
		"/X b/\n",
		"a\\/b\\/ c\\\\/D\n",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, input string, labelOptional bool) {
		format := mustNew(t, Config{Name: "slash", Label: "tag"})
		sents := fuzzRead(t, format, input, ReadOptions{LabelOptional: labelOptional})
		out := fuzzWrite(t, format, sents, constLabels)
		if strings.HasPrefix(out, "\ufeff") || strings.Contains(out, "\\/P") {
			// A token ending in a backslash turns the appended "/" into
			// an escape: a limit of the slash format itself.
			return
		}
		// The output reads back as words "word/TAG" (or "word") tagged P.
		again, err := readString(format, out, ReadOptions{})
		if err != nil {
			t.Fatalf("reading the output: %v\noutput %q", err, out)
		}
		var want []string
		for _, s := range sents {
			for _, row := range s.Tokens {
				word := row[0]
				if row[1] != "" {
					word += "/" + row[1]
				}
				want = append(want, word+"\x00P")
			}
		}
		if got := rowsOf(again); !slices.Equal(got, want) {
			t.Fatalf("output reads back differently\n got %q\nwant %q\noutput %q", got, want, out)
		}
	})
}

func FuzzReadChars(f *testing.F) {
	for _, seed := range []string{
		"扬帆  远东  做  与  中国  合作  的  先行  \r\n希腊  的  经济  结构  较  特殊  。\r\n",
		"\ufeff中华人民共和国\n\n  \nＩＢＭ\t２００５年 x\u3000y",
		"好\n\xe5\xa5\n",
		"a",
	} {
		f.Add(seed, false, false)
		f.Add(seed, true, false)
		f.Add(seed, false, true)
	}
	f.Fuzz(func(t *testing.T, input string, bi, labelOptional bool) {
		scheme := "BMES"
		if bi {
			scheme = "BI"
		}
		format := mustNew(t, Config{Name: "chars", Label: "label", CharScheme: scheme})
		sents := fuzzRead(t, format, input, ReadOptions{LabelOptional: labelOptional})
		gold := func(s *Sentence) []string { return labelsOf(s, 1) }
		out := fuzzWrite(t, format, sents, gold)
		if strings.HasPrefix(out, "\ufeff") {
			return
		}
		// Writing the gold labels reproduces the segmentation, so the
		// output reads back to the same characters and labels.
		again, err := readString(format, out, ReadOptions{LabelOptional: labelOptional})
		if err != nil {
			t.Fatalf("reading the output: %v\noutput %q", err, out)
		}
		if got, want := rowsOf(again), rowsOf(sents); !slices.Equal(got, want) {
			t.Fatalf("output reads back differently\n got %q\nwant %q\noutput %q", got, want, out)
		}
		for _, s := range sents {
			if labelOptional {
				continue
			}
			words := strings.FieldsFunc(s.Lines[0], func(r rune) bool { return r < utf8.RuneSelf && isSpace(byte(r)) })
			if got, want := labelsOf(s, 1), CharLabels(words, scheme); !slices.Equal(got, want) {
				t.Fatalf("labels %q, CharLabels gives %q", got, want)
			}
		}
	})
}
