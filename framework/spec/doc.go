// Package spec decodes experiment specs written in HCL.
//
// A spec names its variables, corpora, label column and scheme, feature
// templates, learners and evaluation. Template and learner blocks are kept
// as hcl.Body and decoded against the configuration struct that the
// registered template or learner declares, so the spec language grows with
// the registries and every mistake is an hcl.Diagnostic with file:line:col.
package spec
