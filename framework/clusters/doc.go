// Package clusters computes Brown word clusters (Brown et al. 1992) with
// the windowed algorithm of Liang (2005, "Semi-Supervised Learning for
// Natural Language", MIT MEng thesis; his wcluster program), and reads and
// writes the cluster files it produces.
//
// The model is a class bigram model over the words of a text: every word
// type belongs to one cluster, and the quality of a clustering is the
// average mutual information (AMI) of adjacent clusters,
//
//	AMI = Σ_{c,d} p(c,d) log( p(c,d) / (p(c) p(d)) )
//
// where p(c,d) is the number of times a word of c is followed by a word of
// d (within a sentence) over the number of tokens, and p(c) a cluster's
// token count over the number of tokens, both counted over the words that
// are clusters so far. Words are taken by frequency (most frequent first,
// ties by the word's bytes): the first C start as clusters of their own;
// each further word is added as a new cluster and then the two clusters
// whose merge loses the least AMI are merged, so C clusters are active
// after every step. Once every word is in, the C clusters are merged the
// same way down to one; that last phase is the hierarchy, and a word's bit
// string is the path from the root to its cluster (0 for the first of the
// two clusters a merge joined, 1 for the second).
//
// The loss of every pair of active clusters is kept in a table and
// updated in place, as Liang's implementation does: adding or merging
// clusters changes the loss of an unrelated pair only through the terms
// that involve the clusters added or merged, so a step costs O(C²) and the
// whole run O(V·C²) for V words. Only clusters that share a bigram with
// the ones added or merged change, which with natural text's sparse
// bigrams is far fewer than C². The tests check every loss of every step
// against the AMI difference computed from scratch.
//
// Everything is deterministic: word order by (count, bytes), slots taken
// lowest first, and the pair with the least loss chosen first in row
// order; with several threads each loss is computed by exactly the same
// arithmetic, so output is byte-identical for any thread count.
//
// A cluster file has a line per word, as Liang's wcluster writes it:
//
//	bitstring<TAB>word<TAB>count
//
// sorted by bit string, then by count (largest first), then by word.
package clusters
