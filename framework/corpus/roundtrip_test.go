package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRoundTrip reads each file under testdata/roundtrip and writes it
// back with the gold labels as predictions. The output must equal the
// golden file (rewrite with -update) and, independently of the golden
// file, be the input's lines with the label appended.
func TestRoundTrip(t *testing.T) {
	tests := []struct {
		file string
		cfg  Config
	}{
		{"chunk.conll", Config{Name: "conll", Columns: []string{"word", "pos", "chunk"}, Label: "chunk"}},
		{"ner.conll", Config{Name: "conll", Columns: []string{"word", "pos", "chunk", "ner"}, Label: "ner"}},
		{"tab.conll", Config{Name: "conll", Columns: []string{"word", "pos", "ner"}, Label: "ner", Separator: "\t"}},
		{"ewt.conllu", Config{Name: "conllu", Label: "upos"}},
		{"tagged.slash", Config{Name: "slash", Label: "tag"}},
		{"seg.chars", Config{Name: "chars", Label: "label"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			in := filepath.Join("testdata", "roundtrip", tt.file)
			f := mustNew(t, tt.cfg)
			sents, err := ReadAll(f, in, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := writeString(t, f, sents, f.LabelColumn())

			golden := in + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run go test -update if the change is intended)\n got %q\nwant %q", golden, got, want)
			}

			input, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			checkAppended(t, tt.cfg, string(input), got)
		})
	}
}

// checkAppended checks output against input without the reader's help:
// every content line comes back with its gold label (the last field, for
// conll; UPOS for conllu) appended, conll document markers with O, extra
// blank lines aside; whitespace-separated conll lines lose trailing
// whitespace.
func checkAppended(t *testing.T, cfg Config, input, output string) {
	t.Helper()
	input = strings.TrimPrefix(input, "\ufeff")
	var want []string
	for _, line := range strings.Split(input, "\n") {
		line = strings.TrimSuffix(line, "\r")
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] == "-DOCSTART-" && cfg.Name != "conll" {
			continue
		}
		switch {
		case cfg.Name == "conll":
			sep := " "
			if strings.Contains(line, "\t") {
				sep = "\t"
			}
			if cfg.Separator == "" || fields[0] == "-DOCSTART-" {
				line = strings.TrimRight(line, " \t")
			}
			if fields[0] == "-DOCSTART-" {
				line += sep + "O" // document boundaries come back labelled O
			} else {
				line += sep + fields[len(fields)-1]
			}
		case cfg.Name == "conllu":
			if cols := strings.Split(line, "\t"); len(cols) == 10 && !strings.ContainsAny(cols[0], "-.") {
				line += "\t" + cols[3]
			}
		case cfg.Name == "slash":
			for i, tok := range fields {
				fields[i] = tok + tok[strings.LastIndex(tok, "/"):]
			}
			line = strings.Join(fields, " ")
		case cfg.Name == "chars":
			line = strings.Join(fields, "  ")
		}
		want = append(want, line)
	}
	var got []string
	for _, line := range strings.Split(output, "\n") {
		if line != "" {
			got = append(got, line)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("output is not the input with labels appended\n got %q\nwant %q", got, want)
	}
}
