package online

import (
	"context"

	"github.com/trellis-nlp/trellis/framework/learn"
)

// TrainMixed is Train by iterative parameter mixing whatever c.Shards,
// one shard included, so that the tests can hold one shard against the
// serial learner.
func TrainMixed(ctx context.Context, p *learn.Problem, name string, c *Config, rule Rule) (*learn.Result, error) {
	return train(ctx, p, name, c, rule, true)
}
