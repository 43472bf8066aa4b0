package corpus

import (
	"io"
	"reflect"
	"strings"
	"testing"
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
