package trellis_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/trellis-nlp/trellis/framework/trellis"
)

// Train a part-of-speech tagger on sentences in memory and tag new text.
func ExampleTrain() {
	data := []string{
		"The/DET dog/NOUN barks/VERB ./PUNCT",
		"A/DET cat/NOUN sleeps/VERB ./PUNCT",
		"The/DET old/ADJ dog/NOUN sleeps/VERB ./PUNCT",
		"A/DET small/ADJ cat/NOUN barks/VERB ./PUNCT",
		"Dogs/NOUN bark/VERB loudly/ADV ./PUNCT",
		"The/DET cat/NOUN runs/VERB quickly/ADV ./PUNCT",
	}
	var sents []trellis.Sentence
	for _, line := range data {
		var s trellis.Sentence
		for _, tok := range strings.Fields(line) {
			word, label, _ := strings.Cut(tok, "/")
			s.Tokens = append(s.Tokens, word)
			s.Labels = append(s.Labels, label)
		}
		sents = append(sents, s)
	}
	m, err := trellis.Train(context.Background(), sents, trellis.Options{
		Learner: trellis.Learner{Type: "perceptron", Config: map[string]any{"epochs": 5}},
		Seed:    1,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	labels, err := m.Tag([]string{"A", "small", "dog", "runs", "loudly", "."})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(labels)
	// Output:
	// [DET ADJ NOUN VERB ADV PUNCT]
}

// Train the perceptron of the quickstart spec (UD English EWT sample, part of
// speech) and tag a sentence given as its words.
func ExampleTrainSpecFile() {
	m, err := trellis.TrainSpecFile(context.Background(), "../../specs/quickstart.hcl", trellis.SpecOptions{Learner: "perceptron"})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	labels, err := m.Tag(strings.Fields("The food was good and the service was great ."))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Learner(), labels)
	// Output:
	// perceptron [DET NOUN AUX ADJ CCONJ DET NOUN AUX ADJ PUNCT]
}

// A spec with a mistake is a *SpecError: its hcl.Diagnostics, printed
// with file:line:col and the source line.
func ExampleSpecError() {
	src := `experiment "typo" {}
corpus "train" {
  path   = "../../specs/data/ud-ewt-sample/train.conllu"
  format = "conllu"
}
labels {
  column = "upos"
}
features {
  emision "w" {
    column = "form"
  }
}
learner "hmm" {
  type = "hmm"
}
evaluation {
  train = "train"
  test  = "train"
}
`
	_, err := trellis.TrainSpec(context.Background(), "typo.hcl", []byte(src), trellis.SpecOptions{})
	var se *trellis.SpecError
	if errors.As(err, &se) {
		fmt.Println(len(se.Diagnostics), "diagnostic")
		fmt.Println(err)
	}
	// Output:
	// 1 diagnostic
	// typo.hcl:10:3: error: Unsupported block type; Blocks of type "emision" are not expected here. Did you mean "emission"?
	//    10 |   emision "w" {
	//       |   ^^^^^^^
}

// Save a model and load it back: the file is the one `trellis run` writes,
// so `trellis tag --model chunker.model` reads it too.
func ExampleLoad() {
	var sents []trellis.Sentence
	for _, line := range []string{
		"the/B-NP dog/I-NP barks/B-VP",
		"a/B-NP cat/I-NP sleeps/B-VP",
		"the/B-NP old/I-NP cat/I-NP sees/B-VP a/B-NP dog/I-NP",
	} {
		var s trellis.Sentence
		for _, tok := range strings.Fields(line) {
			word, label, _ := strings.Cut(tok, "/")
			s.Tokens = append(s.Tokens, word)
			s.Labels = append(s.Labels, label)
		}
		sents = append(sents, s)
	}
	m, err := trellis.Train(context.Background(), sents, trellis.Options{
		Learner: trellis.Learner{Type: "hmm"},
		Scheme:  "iob2", // decoding never puts I-NP after B-VP
	})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	dir, err := os.MkdirTemp("", "trellis-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "chunker.model")
	if err := m.Save(path); err != nil {
		log.Fatal(err)
	}
	loaded, err := trellis.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	defer loaded.Close()
	labels, err := loaded.Tag(strings.Fields("the old dog sleeps"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(loaded.Learner(), loaded.Labels(), labels)
	// Output:
	// hmm [B-NP I-NP B-VP] [B-NP I-NP I-NP B-VP]
}

// Tag raw text: the shipped tokenizer splits it into sentences and tokens
// with character offsets, and the model labels each token.
func ExampleModel_TagText() {
	m, err := trellis.TrainSpecFile(context.Background(), "../../specs/quickstart.hcl", trellis.SpecOptions{Learner: "perceptron"})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	tok, err := trellis.NewTokenizer("en-tokenizer")
	if err != nil {
		log.Fatal(err)
	}
	sents, err := m.TagText("The food was good. I didn't pay.", tok)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range sents {
		var out []string
		for _, t := range s.Tokens {
			out = append(out, fmt.Sprintf("%s/%s@%d", t.Text, t.Label, *t.Start))
		}
		fmt.Println(strings.Join(out, " "))
	}
	// Output:
	// The/DET@0 food/NOUN@4 was/AUX@9 good/ADJ@13 ./PUNCT@17
	// I/PRON@19 did/AUX@21 n't/PART@24 pay/VERB@28 ./PUNCT@31
}
