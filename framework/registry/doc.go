// Package registry holds the one kind of table trellis uses for everything
// a spec or a model file names: feature template types, learner types and
// corpus formats. A Registry maps names to values (usually factories) and
// knows how to answer a name it does not hold with a "did you mean".
//
// Registries are built explicitly, by a function that registers every
// entry in one place (builtin.Registries, corpus.Formats), never through
// init side effects or package-level variables: what a binary can run is
// then visible in one file, and tests can build their own registries.
package registry
