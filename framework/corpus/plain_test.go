package corpus

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// readPlain reads everything r yields: per sentence, its word column
// values, and the first error.
func readPlain(r Reader) (words [][]string, lines []int, err error) {
	for {
		s, err := r.Read()
		if err == io.EOF {
			return words, lines, nil
		}
		if err != nil {
			return words, lines, err
		}
		var w []string
		for _, row := range s.Tokens {
			if len(row) != 3 || row[0] != "" || row[2] != "" {
				return words, lines, &Error{Line: s.Line, Msg: "row " + strings.Join(row, "|")}
			}
			w = append(w, row[1])
		}
		words, lines = append(words, w), append(lines, s.Line)
	}
}

func TestPlainReaders(t *testing.T) {
	tests := []struct {
		name, input string
		tokens      bool
		want        [][]string
		lines       []int
		err         string
	}{
		{name: "text", input: "The cat  sat .\n\n\tA dog\r\n", want: [][]string{{"The", "cat", "sat", "."}, {"A", "dog"}}, lines: []int{1, 3}},
		{name: "text BOM, no final newline", input: "\xef\xbb\xbfHello world", want: [][]string{{"Hello", "world"}}, lines: []int{1}},
		{name: "text blank only", input: "\n  \n", want: nil},
		{name: "text bad UTF-8", input: "ok\nbad \xff\n", want: [][]string{{"ok"}}, lines: []int{1}, err: "in.txt:2: invalid UTF-8"},
		{name: "tokens", input: "The\ncat\n\n\nNew York\r\n", tokens: true, want: [][]string{{"The", "cat"}, {"New York"}}, lines: []int{1, 5}},
		{name: "tokens trailing blank", input: "a\n \n", tokens: true, want: [][]string{{"a"}}, lines: []int{1}},
		{name: "tokens with a tab", input: "a\nthe\tDT\n", tokens: true, err: "in.txt:2: a token line holds a tab"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r Reader
			if tc.tokens {
				r = NewTokensReader(strings.NewReader(tc.input), "in.txt", 3, 1)
			} else {
				r = NewTextReader(strings.NewReader(tc.input), "in.txt", 3, 1)
			}
			words, lines, err := readPlain(r)
			if (err == nil) != (tc.err == "") || err != nil && !strings.HasPrefix(err.Error(), tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if !reflect.DeepEqual(words, tc.want) || !reflect.DeepEqual(lines, tc.lines) {
				t.Errorf("got %q at lines %v, want %q at %v", words, lines, tc.want, tc.lines)
			}
		})
	}
}

// FuzzReadPlain checks the plain-text readers: no panics, errors are
// *Error values inside the input and sticky, every sentence non-empty with
// its tokens in the word column (no white space at their ends, no tab, and
// for text no white space inside) and the other columns empty.
func FuzzReadPlain(f *testing.F) {
	for _, seed := range []string{"The cat sat .\n\nA dog\n", "a\nb\n\nc", "\xef\xbb\xbfx \r\n", "a\tb\n", "\xff\n", " \n\t\n", "a\n\u3000\n", "\u00a0\n"} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, input string, tokens bool) {
		lines := strings.Count(input, "\n") + 1
		var r Reader
		if tokens {
			r = NewTokensReader(strings.NewReader(input), "fuzz", 3, 1)
		} else {
			r = NewTextReader(strings.NewReader(input), "fuzz", 3, 1)
		}
		for n := 0; ; n++ {
			s, err := r.Read()
			if err == io.EOF {
				return
			}
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.File != "fuzz" || e.Line < 1 || e.Line > lines {
					t.Fatalf("error %v (%T) is not an *Error inside the %d-line input", err, err, lines)
				}
				if _, err2 := r.Read(); err2 != err {
					t.Fatalf("error not sticky: %v then %v", err, err2)
				}
				return
			}
			if n > lines || s.Len() == 0 || s.Line < 1 || s.Line > lines || len(s.TokenLineNo) != s.Len() {
				t.Fatalf("sentence %d: %d tokens at line %d of %d", n, s.Len(), s.Line, lines)
			}
			for i, row := range s.Tokens {
				tok := row[1]
				if len(row) != 3 || row[0] != "" || row[2] != "" || tok == "" || !utf8.ValidString(tok) ||
					strings.TrimSpace(tok) != tok || strings.ContainsRune(tok, '\t') || !tokens && strings.ContainsAny(tok, " \t\r\v\f") {
					t.Fatalf("sentence %d token %d: row %q", n, i, row)
				}
				if s.TokenLineNo[i] < s.Line || s.TokenLineNo[i] > lines {
					t.Fatalf("token %d at line %d", i, s.TokenLineNo[i])
				}
			}
		}
	})
}
