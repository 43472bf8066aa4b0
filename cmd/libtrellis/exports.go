//go:build cgo

package main

/*
#include <stdlib.h>
#include <stdint.h>

// trellis_buf is len bytes at data, owned by the caller for the call
// (data may be NULL when len is 0).
typedef struct {
	const void *data;
	size_t len;
} trellis_buf;
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/trellis-nlp/trellis/framework/trellis"
)

// setError stores err's message in *errOut (malloc'd; the caller frees it
// with trellis_free_buffer).
func setError(errOut **C.char, err error) {
	if errOut != nil && err != nil {
		*errOut = C.CString(err.Error())
	}
}

// cBytes copies a Go byte slice into malloc'd memory.
func cBytes(b []byte, n *C.size_t) unsafe.Pointer {
	if n != nil {
		*n = C.size_t(len(b))
	}
	return C.CBytes(b)
}

// goString is s as a Go string, "" for NULL.
func goString(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// goBytes views C memory as a Go slice without copying; it must not be
// kept past the call.
func goBytes(p unsafe.Pointer, n C.size_t) []byte {
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(n))
}

// goBuf views a trellis_buf as goBytes does.
func goBuf(b C.trellis_buf) []byte { return goBytes(b.data, b.len) }

// bufferCall is the frame of the exports that answer with a buffer: it
// looks handle h up, runs f on its model, and returns f's bytes in
// malloc'd memory (their length in *n), or nil with the error (a panic
// included) in *errOut.
func bufferCall(h C.int64_t, n *C.size_t, errOut **C.char, f func(*trellis.Model) ([]byte, error)) (out unsafe.Pointer) {
	var err error
	defer func() { setError(errOut, err) }()
	defer guard(&err)
	m, err := models.get(int64(h))
	if err != nil {
		return nil
	}
	b, err := f(m)
	if err != nil {
		return nil
	}
	return cBytes(b, n)
}

// trellis_train trains a model on sentence buffers (dev may be empty)
// with settings, a JSON train request, and returns its handle (0 and the
// error in *errOut on failure).
//
//export trellis_train
func trellis_train(settings, trainBuf, devBuf C.trellis_buf, errOut **C.char) (h C.int64_t) {
	var err error
	defer func() { setError(errOut, err) }()
	defer guard(&err)
	m, log, err := train(goBuf(settings), goBuf(trainBuf), goBuf(devBuf))
	if err != nil {
		return 0
	}
	return C.int64_t(models.add(m, log))
}

//export trellis_load
func trellis_load(path *C.char, errOut **C.char) (h C.int64_t) {
	var err error
	defer func() { setError(errOut, err) }()
	defer guard(&err)
	m, err := trellis.Load(C.GoString(path))
	if err != nil {
		return 0
	}
	return C.int64_t(models.add(m, nil))
}

//export trellis_load_bytes
func trellis_load_bytes(data unsafe.Pointer, n C.size_t, errOut **C.char) (h C.int64_t) {
	var err error
	defer func() { setError(errOut, err) }()
	defer guard(&err)
	m, err := trellis.LoadBytes(goBytes(data, n))
	if err != nil {
		return 0
	}
	return C.int64_t(models.add(m, nil))
}

//export trellis_info
func trellis_info(h C.int64_t, n *C.size_t, errOut **C.char) unsafe.Pointer {
	return bufferCall(h, n, errOut, modelInfo)
}

// trellis_weights returns the model's parameters as JSON (weights.go).
//
//export trellis_weights
func trellis_weights(h C.int64_t, n *C.size_t, errOut **C.char) unsafe.Pointer {
	return bufferCall(h, n, errOut, modelWeights)
}

// trellis_training_log returns the model's training log as a JSON array
// of events ([] for a loaded model).
//
//export trellis_training_log
func trellis_training_log(h C.int64_t, n *C.size_t, errOut **C.char) unsafe.Pointer {
	return bufferCall(h, n, errOut, func(*trellis.Model) ([]byte, error) { return trainingLog(int64(h)) })
}

//export trellis_tag
func trellis_tag(h C.int64_t, req unsafe.Pointer, reqLen C.size_t, marginals C.int, n *C.size_t, errOut **C.char) unsafe.Pointer {
	return bufferCall(h, n, errOut, func(m *trellis.Model) ([]byte, error) {
		return tag(m, goBytes(req, reqLen), marginals != 0)
	})
}

//export trellis_tag_attributes
func trellis_tag_attributes(h C.int64_t, buf unsafe.Pointer, bufLen C.size_t, marginals C.int, n *C.size_t, errOut **C.char) unsafe.Pointer {
	return bufferCall(h, n, errOut, func(m *trellis.Model) ([]byte, error) {
		return tagBuffer(m, goBytes(buf, bufLen), marginals != 0)
	})
}

// trellis_tag_text tags raw UTF-8 text (textLen bytes) with the model,
// split by the tokenizer called tokenizer (NULL or "": en-tokenizer), and
// returns a JSON array of sentences as `trellis tag --input text
// --output json` prints them, offsets in characters of text.
//
//export trellis_tag_text
func trellis_tag_text(h C.int64_t, text unsafe.Pointer, textLen C.size_t, tokenizer *C.char, n *C.size_t, errOut **C.char) unsafe.Pointer {
	return bufferCall(h, n, errOut, func(m *trellis.Model) ([]byte, error) {
		if text == nil && textLen != 0 {
			return nil, errNoText
		}
		return tagText(m, goBytes(text, textLen), goString(tokenizer))
	})
}

// trellis_tokenize splits raw UTF-8 text into sentences and tokens with
// the tokenizer called tokenizer (NULL or "": en-tokenizer) and returns
// them as a JSON array, offsets in characters of text.
//
//export trellis_tokenize
func trellis_tokenize(text unsafe.Pointer, textLen C.size_t, tokenizer *C.char, n *C.size_t, errOut **C.char) (out unsafe.Pointer) {
	var err error
	defer func() { setError(errOut, err) }()
	defer guard(&err)
	if text == nil && textLen != 0 {
		err = errNoText
		return nil
	}
	b, err := tokenizeText(goBytes(text, textLen), goString(tokenizer))
	if err != nil {
		return nil
	}
	return cBytes(b, n)
}

// pipelineCall is bufferCall for the pipeline with handle h.
func pipelineCall(h C.int64_t, n *C.size_t, errOut **C.char, f func(*textPipeline) ([]byte, error)) (out unsafe.Pointer) {
	var err error
	defer func() { setError(errOut, err) }()
	defer guard(&err)
	p, err := pipelines.get(int64(h))
	if err != nil {
		return nil
	}
	b, err := f(p)
	if err != nil {
		return nil
	}
	return cBytes(b, n)
}

// trellis_pipeline_new makes a pipeline of the n models with the handles
// at handles, in order, each reading the labels of the ones before it
// (pipeline.go). It returns the pipeline's handle (free it with
// trellis_pipeline_free; the models stay the caller's), 0 on error.
//
//export trellis_pipeline_new
func trellis_pipeline_new(handles *C.int64_t, n C.size_t, errOut **C.char) (h C.int64_t) {
	var err error
	defer func() { setError(errOut, err) }()
	defer guard(&err)
	if handles == nil && n != 0 {
		err = errors.New("bad request: handles is NULL but n is not 0")
		return 0
	}
	hs := make([]int64, n)
	for i, x := range unsafe.Slice(handles, int(n)) {
		hs[i] = int64(x)
	}
	ph, err := newPipeline(hs)
	return C.int64_t(ph)
}

// trellis_pipeline_tag_text is trellis_tag_text through a pipeline: each
// token also carries every model's label in "tags" (column -> label).
//
//export trellis_pipeline_tag_text
func trellis_pipeline_tag_text(h C.int64_t, text unsafe.Pointer, textLen C.size_t, tokenizer *C.char, n *C.size_t, errOut **C.char) unsafe.Pointer {
	return pipelineCall(h, n, errOut, func(p *textPipeline) ([]byte, error) {
		if text == nil && textLen != 0 {
			return nil, errNoText
		}
		return pipelineTagText(p, goBytes(text, textLen), goString(tokenizer))
	})
}

// trellis_pipeline_tag tags sentences given as words (a JSON array of
// arrays of strings) through a pipeline and returns, per sentence, a JSON
// object column -> labels.
//
//export trellis_pipeline_tag
func trellis_pipeline_tag(h C.int64_t, req unsafe.Pointer, reqLen C.size_t, n *C.size_t, errOut **C.char) unsafe.Pointer {
	return pipelineCall(h, n, errOut, func(p *textPipeline) ([]byte, error) {
		return pipelineTag(p, goBytes(req, reqLen))
	})
}

//export trellis_pipeline_free
func trellis_pipeline_free(h C.int64_t) { pipelines.remove(int64(h)) }

//export trellis_save
func trellis_save(h C.int64_t, path *C.char, errOut **C.char) (status C.int) {
	var err error
	defer func() {
		setError(errOut, err)
		if err != nil {
			status = -1
		}
	}()
	defer guard(&err)
	m, err := models.get(int64(h))
	if err != nil {
		return -1
	}
	err = m.Save(C.GoString(path))
	return 0
}

//export trellis_bytes
func trellis_bytes(h C.int64_t, n *C.size_t, errOut **C.char) unsafe.Pointer {
	return bufferCall(h, n, errOut, (*trellis.Model).Bytes)
}

//export trellis_free
func trellis_free(h C.int64_t) { models.remove(int64(h)) }

//export trellis_free_buffer
func trellis_free_buffer(p unsafe.Pointer) { C.free(p) }
