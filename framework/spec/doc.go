// Package spec decodes experiment specs written in HCL.
//
// A spec names its variables, corpora, label column and scheme, feature
// templates, learners and evaluation. Template and learner blocks are kept
// as hcl.Body and decoded against the configuration struct that the
// registered template or learner declares, so the spec language grows with
// the registries and every mistake is an hcl.Diagnostic with file:line:col.
// Corpus formats are checked, listed and suggested from corpus.Formats, the
// same registry corpus.New reads, so the two cannot disagree.
package spec
