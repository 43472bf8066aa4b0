// kmeans_test.go: k-means against brute force on small data: every point
// at its nearest center, the objective never increasing, centers the
// means of their points at convergence, and the same result whatever the
// number of goroutines.

package embedding

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// gaussian returns n points of dimension dim drawn around c centers
// (spread 1 around centers spread 4; c = 0: one standard normal cloud).
func gaussian(n, dim, c int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	means := make([]float64, max(c, 1)*dim)
	for i := range means {
		if c > 0 {
			means[i] = 4 * r.NormFloat64()
		}
	}
	data := make([]float32, n*dim)
	for i := 0; i < n; i++ {
		m := means[r.IntN(max(c, 1))*dim:]
		for d := 0; d < dim; d++ {
			data[i*dim+d] = float32(m[d] + r.NormFloat64())
		}
	}
	return data
}

// dist64 is the squared distance in float64, the brute-force reference.
func dist64(x, y []float32) float64 {
	s := 0.0
	for d := range x {
		v := float64(x[d]) - float64(y[d])
		s += v * v
	}
	return s
}

// objective is the sum of squared distances of the points to their
// centers.
func objective(data []float32, dim int, centers []float32, assign []int32) float64 {
	s := 0.0
	for i, a := range assign {
		s += dist64(data[i*dim:(i+1)*dim], centers[int(a)*dim:(int(a)+1)*dim])
	}
	return s
}

// checkNearest fails unless every point's center is, up to rounding, its
// nearest one by brute force.
func checkNearest(t *testing.T, data []float32, dim int, centers []float32, assign []int32) {
	t.Helper()
	k := len(centers) / dim
	for i, a := range assign {
		x := data[i*dim : (i+1)*dim]
		best := math.Inf(1)
		for j := 0; j < k; j++ {
			best = min(best, dist64(x, centers[j*dim:(j+1)*dim]))
		}
		if got := dist64(x, centers[int(a)*dim:(int(a)+1)*dim]); got > best*(1+1e-5)+1e-9 {
			t.Fatalf("point %d: assigned at squared distance %g, its nearest center is at %g", i, got, best)
		}
	}
}

func TestKMeansAgainstBruteForce(t *testing.T) {
	cases := []struct {
		name            string
		n, dim, c, k    int
		maxIter, wantIt int // wantIt 0: any number of iterations
	}{
		{"clustered", 600, 5, 8, 8, 100, 0},
		{"one cloud", 500, 3, 0, 17, 100, 0},
		{"more k than clusters", 300, 4, 3, 10, 100, 0},
		{"capped", 2000, 6, 0, 40, 2, 2},
		{"k = n", 12, 2, 0, 12, 100, 0},
		{"one cluster", 50, 3, 0, 1, 100, 0},
		{"odd dimension", 400, 7, 5, 6, 100, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := gaussian(tc.n, tc.dim, tc.c, 3)
			prev := math.Inf(1)
			steps := 0
			trace := func(centers []float32, assign []int32) {
				steps++
				checkNearest(t, data, tc.dim, centers, assign)
				obj := objective(data, tc.dim, centers, assign)
				if obj > prev*(1+1e-9) {
					t.Fatalf("step %d: objective rose from %g to %g", steps, prev, obj)
				}
				prev = obj
			}
			res := kmeans(data, tc.dim, kmeansOptions{K: tc.k, Seed: 1, MaxIter: tc.maxIter, Workers: 3, trace: trace})
			checkNearest(t, data, tc.dim, res.Centers, res.Assign)
			if tc.wantIt > 0 && (res.Iterations != tc.wantIt || res.Converged) {
				t.Fatalf("%d iterations, converged %v; want %d, stopped by the cap", res.Iterations, res.Converged, tc.wantIt)
			}
			if !res.Converged {
				return
			}
			// At convergence every non-empty cluster's center is its mean.
			for j := 0; j < tc.k; j++ {
				var sum []float64 = make([]float64, tc.dim)
				count := 0
				for i, a := range res.Assign {
					if int(a) == j {
						count++
						for d := range sum {
							sum[d] += float64(data[i*tc.dim+d])
						}
					}
				}
				for d := range sum {
					if count > 0 && math.Abs(sum[d]/float64(count)-float64(res.Centers[j*tc.dim+d])) > 1e-4 {
						t.Fatalf("center %d is not the mean of its %d points", j, count)
					}
				}
			}
		})
	}
}

// TestKMeansFindsSeparatedClusters: well separated clusters come back as
// they were drawn.
func TestKMeansFindsSeparatedClusters(t *testing.T) {
	const dim = 4
	var data []float32
	var truth []int
	for c := 0; c < 5; c++ {
		for p := 0; p < 20; p++ {
			truth = append(truth, c)
			for d := 0; d < dim; d++ {
				data = append(data, float32(100*c*(d+1))+float32((p*7+d)%5)/10)
			}
		}
	}
	res := kmeans(data, dim, kmeansOptions{K: 5, Seed: 9, MaxIter: 50})
	label := map[int32]int{}
	for i, a := range res.Assign {
		if c, ok := label[a]; ok && c != truth[i] {
			t.Fatalf("cluster %d mixes drawn clusters %d and %d", a, c, truth[i])
		}
		label[a] = truth[i]
	}
	if len(label) != 5 {
		t.Fatalf("%d clusters used, want 5", len(label))
	}
}

// TestKMeansDeterministic: the same seed gives the same clustering
// whatever the number of goroutines; another seed another seeding.
func TestKMeansDeterministic(t *testing.T) {
	data := gaussian(3000, 8, 0, 5)
	run := func(seed uint64, workers int) kmeansResult {
		return kmeans(data, 8, kmeansOptions{K: 30, Seed: seed, MaxIter: 30, Workers: workers})
	}
	a := run(4, 1)
	for _, w := range []int{2, 3, 8} {
		b := run(4, w)
		if !slices.Equal(a.Assign, b.Assign) || !slices.Equal(a.Centers, b.Centers) || a.Iterations != b.Iterations {
			t.Fatalf("%d workers give another clustering than 1", w)
		}
	}
	if c := run(5, 2); slices.Equal(a.Centers, c.Centers) {
		t.Fatalf("seeds 4 and 5 give the same centers")
	}
}

// TestKMeansDuplicatePoints: fewer distinct points than k leaves some
// clusters empty, without a panic or a NaN.
func TestKMeansDuplicatePoints(t *testing.T) {
	data := []float32{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1}
	res := kmeans(data, 2, kmeansOptions{K: 4, Seed: 1, MaxIter: 10})
	for _, c := range res.Centers {
		if math.IsNaN(float64(c)) {
			t.Fatalf("NaN center: %v", res.Centers)
		}
	}
	checkNearest(t, data, 2, res.Centers, res.Assign)
	if res.Assign[0] != res.Assign[1] || res.Assign[0] == res.Assign[3] {
		t.Fatalf("assignment %v does not follow the points", res.Assign)
	}
}

// BenchmarkKMeans is the size the package documentation quotes: 100,000
// vectors of 100 dimensions, k = 256 (go test -bench KMeans -benchtime 1x).
func BenchmarkKMeans(b *testing.B) {
	for _, c := range []struct {
		name     string
		clusters int
	}{{"structured", 1000}, {"gaussian", 0}} {
		data := gaussian(100000, 100, c.clusters, 1)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				start := time.Now()
				res := kmeans(data, 100, kmeansOptions{K: 256, Seed: 1, MaxIter: defaultMaxIterations})
				b.ReportMetric(float64(res.Iterations), "iterations")
				b.ReportMetric(time.Since(start).Seconds(), "s")
			}
		})
	}
}
