package corpus

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name        string
		cfg         Config
		wantColumns string
		wantLabel   int
		wantErr     string // substring
	}{
		{"conll", Config{Name: "conll", Columns: []string{"word", "pos", "chunk"}, Label: "chunk"}, "word pos chunk", 2, ""},
		{"conll no label", Config{Name: "conll", Columns: []string{"word", "pos"}}, "word pos", -1, ""},
		{"conll tab", Config{Name: "conll", Columns: []string{"word", "pos"}, Separator: "\t"}, "word pos", -1, ""},
		{"conll tab alias", Config{Name: "conll", Columns: []string{"word", "pos"}, Separator: "tab"}, "word pos", -1, ""},
		{"conll space", Config{Name: "conll", Columns: []string{"word", "pos"}, Separator: " "}, "word pos", -1, ""},
		{"conllu", Config{Name: "conllu", Label: "upos"}, "id form lemma upos xpos feats head deprel deps misc", 3, ""},
		{"conllu upper-case label", Config{Name: "conllu", Label: "XPOS"}, "id form lemma upos xpos feats head deprel deps misc", 4, ""},
		{"conllu columns ignored", Config{Name: "conllu", Columns: []string{"a"}}, "id form lemma upos xpos feats head deprel deps misc", -1, ""},
		{"slash", Config{Name: "slash", Label: "tag"}, "word tag", 1, ""},
		{"chars", Config{Name: "chars", Label: "label"}, "char label", 1, ""},
		{"chars BI", Config{Name: "chars", Label: "label", CharScheme: "bi"}, "char label", 1, ""},
		{"chars no label", Config{Name: "chars"}, "char label", -1, ""},

		{"unknown format", Config{Name: "csv"}, "", 0, `unknown corpus format "csv" (want conll, conllu, slash, chars, crfsuite or rawtext)`},
		{"no format", Config{}, "", 0, "no corpus format given"},
		{"conll without columns", Config{Name: "conll"}, "", 0, "the conll format needs columns"},
		{"conll empty column", Config{Name: "conll", Columns: []string{"word", ""}}, "", 0, "a column name is empty"},
		{"conll duplicate column", Config{Name: "conll", Columns: []string{"word", "word"}}, "", 0, `column "word" is named twice`},
		{"conll unknown label", Config{Name: "conll", Columns: []string{"word", "pos"}, Label: "ner"}, "", 0, `label column "ner" is not one of the columns (word pos)`},
		{"conll bad separator", Config{Name: "conll", Columns: []string{"word"}, Separator: ","}, "", 0, `unknown conll separator ","`},
		{"conllu unknown label", Config{Name: "conllu", Label: "pos"}, "", 0, `label column "pos" is not one of the columns`},
		{"slash unknown label", Config{Name: "slash", Label: "pos"}, "", 0, `label column "pos" is not one of the columns (word tag)`},
		{"chars bad scheme", Config{Name: "chars", CharScheme: "BIO"}, "", 0, `unknown char_scheme "BIO" (want BMES or BI)`},
		{"chars unknown label", Config{Name: "chars", Label: "tag"}, "", 0, `label column "tag" is not one of the columns (char label)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := New(tt.cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Name() != tt.cfg.Name {
				t.Errorf("Name() = %q, want %q", f.Name(), tt.cfg.Name)
			}
			if got := strings.Join(f.Columns(), " "); got != tt.wantColumns {
				t.Errorf("Columns() = %q, want %q", got, tt.wantColumns)
			}
			if f.LabelColumn() != tt.wantLabel {
				t.Errorf("LabelColumn() = %d, want %d", f.LabelColumn(), tt.wantLabel)
			}
		})
	}
}

func TestColumnsIsACopy(t *testing.T) {
	cols := []string{"word", "pos"}
	f := mustNew(t, Config{Name: "conll", Columns: cols})
	cols[0] = "changed"
	f.Columns()[1] = "changed"
	if got := strings.Join(f.Columns(), " "); got != "word pos" {
		t.Fatalf("Columns() = %q after callers modified slices", got)
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{File: "a.txt", Line: 3, Msg: "bad"}, "a.txt:3: bad"},
		{&Error{Line: 3, Msg: "bad"}, "line 3: bad"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "train.txt")
	if err := os.WriteFile(path, []byte("a X\nb Y\n\nc Z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := mustNew(t, Config{Name: "conll", Columns: []string{"word", "tag"}, Label: "tag"})
	sents, err := ReadAll(f, path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summaries(sents), []string{"1: a|X b|Y", "4: c|Z"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if sents[0].File != path {
		t.Errorf("File = %q, want %q", sents[0].File, path)
	}

	t.Run("missing file", func(t *testing.T) {
		missing := filepath.Join(dir, "missing.txt")
		_, err := ReadAll(f, missing, ReadOptions{})
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
			t.Fatalf("error %v should be not-exist and name %s", err, missing)
		}
	})
	t.Run("data error", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.txt")
		if err := os.WriteFile(bad, []byte("a X\nb\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadAll(f, bad, ReadOptions{})
		checkErr(t, err, bad+`:2: expected 2 columns (word tag), found 1 in "b"`)
	})
}

// failingReader returns some data, then an I/O error.
type failingReader struct{ data string }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadIOError(t *testing.T) {
	for _, name := range []string{"conll", "conllu", "slash", "chars"} {
		t.Run(name, func(t *testing.T) {
			f := mustNew(t, Config{Name: name, Columns: []string{"word"}})
			r := f.NewReader(&failingReader{}, "in.txt", ReadOptions{})
			_, err := r.Read()
			if err == nil || err.Error() != "in.txt: disk on fire" {
				t.Fatalf("error = %v, want the I/O error with the file name", err)
			}
			// Errors are sticky.
			if _, err2 := r.Read(); err2 != err {
				t.Fatalf("second Read error = %v, want %v", err2, err)
			}
		})
	}
}

func TestLongLines(t *testing.T) {
	defer func(old int) { maxLineBytes = old }(maxLineBytes)
	maxLineBytes = 1 << 20 // keep the test small; the mechanism is the same at 64 MiB

	long := strings.Repeat("x", readBufferSize*3) // longer than the bufio buffer
	t.Run("longer than the read buffer", func(t *testing.T) {
		f := mustNew(t, Config{Name: "conll", Columns: []string{"word", "tag"}})
		sents, err := readString(f, "a X\n"+long+" Y\r\nb Z", ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(sents) != 1 || sents[0].Len() != 3 || sents[0].Tokens[1][0] != long || sents[0].Tokens[1][1] != "Y" || sents[0].TokenLineNo[2] != 3 {
			t.Fatalf("long line misread: %d sentences", len(sents))
		}
	})
	t.Run("over the limit", func(t *testing.T) {
		f := mustNew(t, Config{Name: "chars"})
		huge := strings.Repeat("字", maxLineBytes/3+1)
		_, err := readString(f, "a\n"+huge+"\n", ReadOptions{})
		checkErr(t, err, "in.txt:2: line longer than 1 MiB (is this a text file?)")
	})
}
