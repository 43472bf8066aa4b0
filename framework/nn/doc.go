// Package nn holds the neural layers of a BiLSTM-CNN sequence encoder
// (Lample et al. 2016, "Neural Architectures for Named Entity
// Recognition"; Ma & Hovy 2016, "End-to-end Sequence Labeling via
// Bi-directional LSTM-CNNs-CRF") with backpropagation written by hand. It
// produces per-token label scores for a CRF lattice, which computes the
// loss and hands back ∂loss/∂scores (marginals minus gold); this package
// has no CRF and no automatic differentiation. Every gradient is checked
// against central finite differences in float64 by the tests.
//
// # Layers
//
// Each layer is a struct of parameters with Forward, which keeps in a
// cache what Backward needs, and Backward, which adds the parameter
// gradients to a Grads and returns the input gradient:
//
//   - Embedding: a [V][D] table; Forward gathers rows for int32 IDs,
//     Backward adds to the rows it used (sparse). SetRows loads
//     pretrained vectors.
//   - Linear: y = W·x + b on every row of an [n][In] input, one matrix
//     product for the sequence.
//   - LSTM: one direction (Reverse for right to left), forget-gate bias 1;
//     the input projection of all n steps is one product of the [n][In]
//     input and Wxᵀ ([In][4H], Wx being stored [4H][In]), then the
//     recurrence runs step by step; Backward is backpropagation through
//     time, with the weight gradients again one product each.
//   - BiLSTM: a forward and a reversed LSTM per layer, outputs
//     concatenated to [n][2H], layers stacked.
//   - CharCNN: character embeddings, a 1-D convolution centred on each
//     character (zero padding, so short words work), tanh, max-pooling
//     over the word.
//   - CharLSTM: character embeddings read by an LSTM each way; the word is
//     the forward state after its last character and the backward state
//     after its first (Lample et al. 2016).
//   - Dropout: inverted dropout whose mask comes from the caller's seeded
//     math/rand/v2 generator; the identity at inference.
//   - Encoder: [word | extra columns | chars] → dropout → BiLSTM →
//     dropout → Linear, giving [n][Labels] scores, run through a
//     per-goroutine Workspace.
//
// SGD (with optional momentum) and Adam update a Params from its reduced
// gradient, with clipping by global norm and a learning-rate schedule.
//
// Layers are generic over Float (float32 or float64): production uses
// float32; the gradient checks run in float64, where central differences
// are accurate to about 1e-9, and a test compares the float32 path with
// the float64 one.
//
// # Shapes
//
// Every buffer is a row-major flat slice, and every comment gives its
// shape as "an [n][H] matrix whose element [t][j] is …": element [t][j]
// is at index t·H + j. Sequences are [n][width] with one row per token.
// Outputs returned by Forward and Backward are owned by the cache that
// produced them and are overwritten by its next call; Forward keeps a
// reference to its input, which must not change until Backward.
//
// # Concurrency and reduction
//
// Weights (Param.W) are only read during Forward and Backward. Everything
// a pass writes is per goroutine: the layer caches (one Workspace for an
// Encoder) and the gradient accumulators (a Grads, made by
// Params.NewGrads; a Workspace has its own). So several sentences can be
// back-propagated at once, one Workspace per goroutine. The recipe for
// bytes that do not depend on the number of threads:
//
//  1. split each batch into a fixed number of shards, each with its own
//     Workspace (and so its own Grads), the sentences of a shard in a
//     fixed order; reseed the dropout generator per sentence (for
//     example rand.PCG.Seed(seed, sentenceIndex));
//  2. run the shards on any number of goroutines;
//  3. call Params.Reduce(shards), which sets every G to shard 0 + shard 1
//     + … in that order and zeroes the shards, then the optimiser's Step.
//
// Sparse parameters (the embeddings) track the rows each Grads touched,
// so Reduce, clipping and (with Settings.Lazy) the update cost the rows a
// batch used, not the vocabulary.
//
// Buffers grow to the longest sentence seen and are reused: after
// warm-up, Forward, Backward, Reduce and Step allocate nothing
// (TestEncoderNoAllocs, TestBiLSTMNoAllocs).
//
// # Initialisation and serialisation
//
// Params.Init draws every weight from a caller's *rand.Rand in the order
// parameters were added (documented on Encoder) and in row-major order
// within each: Glorot uniform for matrices (per gate for the LSTM), zero
// biases, forget-gate biases 1, embeddings uniform ±sqrt(3/D). The same
// seed gives the same bytes. Params.WriteTo and ReadFrom store the weights
// as little-endian float32 with names and shapes, and ReadFrom returns an
// error, never panics, on any mismatch.
//
// A checkpoint is Params.WriteExact (the weights at their own precision,
// float64 not rounded) and the optimiser's MarshalState (Settings.Epoch,
// Adam's step count and moments, SGD's momentum; both optimisers
// implement Optimizer). Restored with ReadExact and UnmarshalState into a
// freshly built model and optimiser with the same configuration, training
// continues with exactly the bits of a run never interrupted, as long as
// the batches and dropout seeds are the same (TestCheckpointResume). Both
// loaders check names and shapes and return errors wrapping ErrFormat,
// changing nothing, on any mismatch.
//
// # Matrix products
//
// Every matrix product goes through one function, gemm, which calls
// gonum's blas32 (Sgemm) or blas64 (Dgemm) implementation. gonum's BLAS
// is pure Go with assembly kernels: BSD-licensed, no cgo, so the module
// stays go-installable and cross-compiles, and it is already a
// dependency of the module. gemm cuts C into tiles small enough that
// gonum never starts goroutines of its own (which would allocate and
// fight the per-sentence parallelism); the tiling does not change any
// result. A faster kernel (cgo OpenBLAS, hand-written AVX) can be put in
// with blas32.Use or by changing gemm alone.
//
// # Panics and errors
//
// Inputs that come from data — a Sentence given to Workspace.Forward, a
// file given to ReadFrom, pretrained rows given to SetRows, an
// EncoderConfig — are checked and give errors. Misuse by the calling code
// (shapes that do not match, a Backward without a Forward, an ID out of
// range given straight to a layer) panics with a message naming the
// layer.
package nn
