// Package word2vec trains word vectors on unlabelled text: skip-gram with
// negative sampling (Mikolov, Sutskever, Chen, Corrado and Dean 2013,
// "Distributed Representations of Words and Phrases and their
// Compositionality"), as word2vec.c trains it, for the word table of a
// neural encoder (framework/neural reads the vectors through
// framework/embeddings). `trellis embeddings` is its command.
//
// # Why not a library
//
// The one Go library found that trains such vectors is
// github.com/ynqa/wego (Apache-2.0; word2vec, GloVe and LexVec). It was
// read (its last commit) in November 2026 and not used:
//
//   - It is not kept up: no release was ever tagged, and the last commit
//     (2023-04-03) raised its go.mod to Go 1.18.
//   - It cannot give the same vectors twice. The initial vectors and the
//     subsampling draw from math/rand's global source, which Go seeds at
//     random since 1.20, and nothing in it takes a seed; the negative samples
//     come from one package-level linear congruential state that every
//     training goroutine updates without synchronisation (a data race);
//     the learning rate is written by an observer goroutine while the
//     trainers read it, so even one thread depends on timing.
//   - It sends one channel message per trained word to that observer.
//   - The Go module proxy reachable here refuses it ("403 This module
//     version is not available"), so it could not have been built anyway.
//
// The other Go packages found (code.sajari.com/word2vec and its forks,
// danieldk/go2vec) only load and query vectors; none trains them. The
// algorithm is small, and owning it gives what trellis needs: the same
// bytes for the same text, settings and seed, with the learning rate, the
// random streams and the merge order all fixed.
//
// # Training
//
// A Counter reads the text (a sentence per line, a CoNLL column or
// CoNLL-U FORMs; Add for anything else), optionally normalising each
// token as the encoder keys its table, and Counter.Corpus keeps the
// words seen MinCount times, most frequent first (ties in byte order):
// the rows of the output. Train then follows word2vec.c's skip-gram with
// negative sampling: input vectors start uniform in ±0.5/Dim and output
// vectors at zero; each token is kept with the subsampling probability
// (√(f/t)+1)·t/f; each kept word draws a window b in 1..Window and every
// word within b of it in its sentence (after subsampling) is a context;
// for each (context, word) pair the context's input vector is trained,
// by logistic regression on σ(in·out), to tell the word's output vector
// (label 1) from Negative noise words drawn from the unigram
// distribution to the 3/4 power (label 0), the output vectors moving at
// once and the input vector by the summed gradient after them; the
// learning rate falls linearly from Alpha to Alpha·10⁻⁴ over the run.
// The vectors written are the input vectors.
//
// Departures from word2vec.c, none of which changes the method: σ is
// read from the table cell f falls in (word2vec.c's integer scale, 1000/6/2
// = 83, reads it up to 0.06 to the left); noise words come from Vose's
// alias table (two slices of the vocabulary's length) rather than a
// table of 10⁸ entries; context windows stop at sentence ends, which are
// the text's (lines, or CoNLL blank lines) rather than every 1000 words;
// there is no "</s>" word; random numbers are SplitMix64.
//
// # Determinism and threads
//
// The vectors are a function of the Corpus and the Options alone
// (Progress aside): every run gives the same bits, and so the same file
// bytes, on any machine. What could vary is ruled out: the random
// numbers come from SplitMix64 streams fixed by Seed (stream 0 for the
// initial vectors, stream i+1 for shard i); the sigmoid table is
// computed with an exp of plain arithmetic rather than math.Exp, whose
// last bit depends on whether the CPU has FMA; the noise distribution
// uses √c·√√c, exactly rounded, for c^0.75; and every product that
// could meet an addition is rounded by an explicit conversion, which the
// Go spec says forbids fusing the two into a multiply-add (Go fuses them
// on arm64, ppc64le, s390x, riscv64 and loong64). go tool objdump of the
// package built for each of those finds no fused instruction, and a
// GOAMD64=v3 build writes the same bytes as the default one.
//
// Options.Threads is the number of shards, and the vectors depend on it
// (not on GOMAXPROCS or the scheduling). With one shard training is the
// plain sequential algorithm. With n > 1 the text is cut into n runs of
// whole sentences with about as many tokens each, and training goes in
// rounds: in a round each shard, in its own goroutine, trains on its next
// 16384 tokens against its own copies of the rows it touches, copied
// from the shared vectors when first touched (the shared vectors are only
// read); then the differences the shards made are added to the shared
// vectors, shard 0's first, then shard 1's, and so on. Nothing is shared
// while it is written (no Hogwild), and every sum is taken in a fixed
// order, so the result does not depend on timing. A shard sees the
// others' updates one round late, which with a few shards changes the
// quality as little as Hogwild's races do (the tests' group corpus
// separates as clearly with 2 shards as with 1), and the learning rate of
// a shard takes the others to be as far as itself.
//
// # Cost
//
// Memory is two V×Dim float32 matrices for V words, the text as one
// int32 per token, and per extra shard two int32 slices of V entries and
// its copied rows. Time is about (Window+1) contexts per kept token,
// each costing Negative+1 dot products and twice as many vector updates
// of Dim values, in plain Go. A second shard costs more CPU time for the
// rounds' copies and merges. The measured speeds are in docs/results.md,
// "Measurements behind design choices in the code".
package word2vec
