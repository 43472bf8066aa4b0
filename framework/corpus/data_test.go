package corpus

import (
	"os"
	"strings"
	"testing"
)

// These tests read the shared evaluation data and check the counts its
// README publishes; they skip when the data is not there.

type dataCounts struct {
	sentences, tokens int
	docs              int            // sentences with DocStart
	passThrough       map[string]int // conllu: "range" and "empty" lines
	labels            map[string]int // a few label counts (label column)
}

func countSentences(sents []*Sentence, labelCol int) dataCounts {
	c := dataCounts{passThrough: map[string]int{}, labels: map[string]int{}}
	for _, s := range sents {
		c.sentences++
		c.tokens += s.Len()
		if s.DocStart {
			c.docs++
		}
		for _, row := range s.Tokens {
			c.labels[row[labelCol]]++
		}
		isToken := map[int]bool{}
		for _, k := range s.TokenLine {
			isToken[k] = true
		}
		for k, line := range s.Lines {
			if isToken[k] || strings.HasPrefix(line, "#") || s.TokenLine == nil {
				continue
			}
			if id, _, _ := strings.Cut(line, "\t"); strings.Contains(id, "-") {
				c.passThrough["range"]++
			} else {
				c.passThrough["empty"]++
			}
		}
	}
	return c
}

func TestSharedData(t *testing.T) {
	chunk := Config{Name: "conll", Columns: []string{"word", "pos", "chunk"}, Label: "chunk"}
	ner := Config{Name: "conll", Columns: []string{"word", "pos", "chunk", "ner"}, Label: "ner"}
	upos := Config{Name: "conllu", Label: "upos"}
	seg := Config{Name: "chars", Label: "label"}
	tests := []struct {
		file        string
		cfg         Config
		sentences   int
		tokens      int
		docs        int
		passThrough map[string]int
		labels      map[string]int
	}{
		{"conll2000/train.txt", chunk, 8936, 211727, 0, nil, map[string]int{"I-NP": 63307, "B-NP": 55081, "O": 27902, "I-UCP": 6, "I-LST": 0}},
		{"conll2000/test.txt", chunk, 2012, 47377, 0, nil, map[string]int{"I-NP": 14376, "B-NP": 12422, "I-LST": 2}},
		{"conll2003/eng.train", ner, 14041, 203621, 946, nil, map[string]int{"O": 169578, "I-PER": 11128, "B-MISC": 37, "B-LOC": 11}},
		{"conll2003/eng.testa", ner, 3250, 51362, 216, nil, map[string]int{"O": 42759, "I-MISC": 1264, "B-ORG": 0}},
		{"ud-english-ewt/en_ewt-ud-train.conllu", upos, 12544, 204577, -1, map[string]int{"range": 2614, "empty": 37}, map[string]int{"NOUN": 34751, "X": 400}},
		{"ud-english-ewt/en_ewt-ud-dev.conllu", upos, 2001, 25147, -1, map[string]int{"range": 359, "empty": 4}, map[string]int{"NOUN": 4210, "X": 59}},
		{"ud-english-ewt/en_ewt-ud-test.conllu", upos, 2077, 25094, -1, map[string]int{"range": 354, "empty": 2}, map[string]int{"PROPN": 2075, "X": 42}},
		{"sighan2005-msr/msr_test_gold.utf8", seg, 3985, 184355, 0, map[string]int{}, map[string]int{"S": 48092, "B": 58781, "M": 18701, "E": 58781}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := dataFile(t, tt.file)
			f := mustNew(t, tt.cfg)
			sents, err := ReadAll(f, path, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c := countSentences(sents, f.LabelColumn())
			if c.sentences != tt.sentences || c.tokens != tt.tokens {
				t.Errorf("%d sentences, %d tokens; README says %d, %d", c.sentences, c.tokens, tt.sentences, tt.tokens)
			}
			if tt.docs >= 0 && c.docs != tt.docs {
				t.Errorf("%d document starts, README says %d", c.docs, tt.docs)
			}
			for kind, want := range tt.passThrough {
				if c.passThrough[kind] != want {
					t.Errorf("%d %s lines, README says %d", c.passThrough[kind], kind, want)
				}
			}
			for label, want := range tt.labels {
				if c.labels[label] != want {
					t.Errorf("label %s: %d tokens, README says %d", label, c.labels[label], want)
				}
			}

			// Writing the gold labels back gives the input with labels appended.
			input, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkAppended(t, tt.cfg, string(input), writeString(t, f, sents, f.LabelColumn()))
		})
	}
}

func TestSharedDataEWTDocs(t *testing.T) {
	path := dataFile(t, "ud-english-ewt/en_ewt-ud-train.conllu")
	input, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sents, err := ReadAll(mustNew(t, Config{Name: "conllu"}), path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := countSentences(sents, 3)
	if want := strings.Count("\n"+string(input), "\n# newdoc"); c.docs != want {
		t.Errorf("%d document starts, the file has %d # newdoc lines", c.docs, want)
	}
}

func TestSharedDataMSRRaw(t *testing.T) {
	// The raw test input, read as a tagger reads it: as many sentences and
	// characters as the gold file (a few quote marks sit on a neighbouring
	// line in one file or the other, so lines are not compared one by one),
	// no labels, and the five literal spaces splitting words, not counted.
	raw := dataFile(t, "sighan2005-msr/msr_test.utf8")
	sents, err := ReadAll(mustNew(t, Config{Name: "chars", Label: "label"}), raw, ReadOptions{LabelOptional: true})
	if err != nil {
		t.Fatal(err)
	}
	chars := 0
	for _, s := range sents {
		chars += s.Len()
		for _, row := range s.Tokens {
			if row[1] != "" {
				t.Fatalf("%s:%d: label %q in unlabelled reading", raw, s.Line, row[1])
			}
		}
	}
	if len(sents) != 3985 || chars != 184355 {
		t.Errorf("%d sentences, %d characters; README says 3,985, 184,355", len(sents), chars)
	}
}
