// Package plural puts counts and nouns together in messages: "1 corpus",
// "3 corpora", "1 token", "0 tokens". One helper, so that no message says
// "1 sentences" or hedges with "sentence(s)".
package plural
