package trellis_test

import (
	"context"
	"errors"
	"testing"

	"github.com/trellis-nlp/trellis/framework/pipeline"
	"github.com/trellis-nlp/trellis/framework/tokenize"
	"github.com/trellis-nlp/trellis/framework/trellis"
)

// TestPipeline: a POS tagger then a chunker reading its "pos" column tag
// raw text as the chunker does given the POS tagger's labels by hand.
func TestPipeline(t *testing.T) {
	ctx := context.Background()
	pos, err := trellis.TrainSpecFile(ctx, "../../cmd/trellis/testdata/tag-postagger.hcl", trellis.SpecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pos.Close()
	chunk, err := trellis.TrainSpecFile(ctx, "../../cmd/trellis/testdata/tag-pos.hcl", trellis.SpecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer chunk.Close()
	p, err := trellis.NewPipeline(pos, chunk)
	if err != nil {
		t.Fatal(err)
	}
	sents, err := p.TagText("The dog barks loudly. A big cat sleeps.", tokenize.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sents) != 2 {
		t.Fatalf("%d sentences", len(sents))
	}
	for _, s := range sents {
		words := make([]string, len(s.Tokens))
		for i, tok := range s.Tokens {
			words[i] = tok.Text
		}
		tags, err := pos.Tag(words)
		if err != nil {
			t.Fatal(err)
		}
		rows := make([][]string, len(words))
		for i := range words {
			rows[i] = []string{words[i], tags[i], ""}
		}
		want, err := chunk.TagRows(rows)
		if err != nil {
			t.Fatal(err)
		}
		for i, tok := range s.Tokens {
			if tok.Label != want[i] || tok.Tags["chunk"] != want[i] || tok.Tags["pos"] != tags[i] {
				t.Errorf("token %d %+v: want pos %s chunk %s", i, tok, tags[i], want[i])
			}
		}
	}
	if _, err := trellis.NewPipeline(chunk, pos); !errors.Is(err, pipeline.ErrNoProducer) {
		t.Errorf("chunker first: %v, want ErrNoProducer", err)
	}
	if _, err := trellis.NewPipeline(pos, pos); err == nil {
		t.Errorf("a model twice was taken")
	}
}
