// Package serve is trellis's tagging service: models loaded once, tagged
// over HTTP/JSON by a pool of taggers per model, with Prometheus metrics,
// an access log and a graceful drain. `trellis serve` runs it.
//
// The routes:
//
//	POST /v1/models/{name}/tag   tag sentences with model name
//	GET  /v1/models              the models, with their provenance
//	GET  /healthz                200 while serving, 503 while draining
//	GET  /metrics                Prometheus text format
//
// A tag request is
//
//	{"sentences": [["The","cat"],…], "columns": {"pos": [["DT","NN"],…]},
//	 "marginals": false, "nbest": 1}
//
// and its answer {"labels": [[…],…]}, with "probabilities", "marginals"
// and "nbest" added when asked for. The words fill the model's word
// column; a model whose templates read other columns (part-of-speech tags
// for a chunker) needs them in "columns", one value per token, and a
// request without them is refused naming them (Tagger.TokenInput in
// framework/tagger says which columns a model reads). For a word
// segmentation model (the chars format) the tokens are the characters. Every error is JSON,
// {"error": "…", "status": N}: 400 for malformed JSON or a wrong shape,
// 404 for an unknown model or route, 405 for a wrong method, 413 for a
// body over Options.MaxBody or more tokens than Options.MaxTokens, 503
// while draining, 500 when tagging fails.
//
// Pipelines: a ModelFile with Then serves several models as one (as
// `trellis tag --model A --model B`, framework/pipeline): each reads the
// labels of the ones before it as the columns it names, which New checks,
// refusing a model that reads a column no earlier one labels. "sentences"
// or "text" give the words; "columns" cannot give a column a model
// labels. The answer's "labels" are the last model's, "tags" every
// model's by column (and each token's "tags" for text), and marginals and
// n-best are the last model's, the earlier labels fixed. GET /v1/models
// lists each model of a pipeline in its "stages". A pipeline's pool holds
// chains, one tagger per model, and a request takes a whole chain.
//
// Concurrency: a model has Options.Concurrency taggers (a Tagger is not
// safe for concurrent use); a request takes one, tags, and gives it back,
// so requests to one model tag in parallel up to that many and queue
// beyond it. The model file is read once; the taggers of a model share
// its dictionaries and weights (tagger.Replica) and own only their
// extractors and buffers.
//
// Plugins: the taggers of a model share one plugin.Host, so each plugin
// binary runs as one process per model. When tagging fails because a
// plugin died, the model's taggers and host are replaced (the plugins
// start again) and the request is tagged once more on the new ones; the
// client sees the answer, the log and trellis_serve_plugin_restarts_total
// the restart.
//
// Shutdown: Serve returns when its context is done, after the requests in
// flight are answered (up to Options.DrainTimeout); meanwhile new
// connections are refused and requests on open ones get 503.
//
// The service reads nothing a request names: models are fixed when it
// starts, and requests carry only tokens.
package serve
