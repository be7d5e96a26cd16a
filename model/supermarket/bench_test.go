package supermarket

import (
	"context"
	"testing"

	"lbsweep/model"
	"lbsweep/model/modeltest"
)

// Benchmarks report simulated events per second of wall-clock time for one whole run (warm-up, measurement, drain).
// Compare with the C reference side by side with bench/compare.sh (from the repository's root), which compiles these
// with the sweep binary's profile (go test -pgo=cmd/sweep/default.pgo).
func benchRun(b *testing.B, n int, pol string, d int) {
	benchModel(b, Model{}, point(b, n, 0.9, 2_000_000/float64(n), 200_000/float64(n), pol, d, false), mEvents)
}

// benchModel times whole runs of m at p (no theory), reporting the events of metric column events.
func benchModel(b *testing.B, m model.Model, p model.Point, events int) {
	var total int64
	b.ResetTimer()
	for i := range b.N {
		row, err := m.Run(context.Background(), p, model.Seed{Run: uint64(i + 1)})
		if err != nil {
			b.Fatal(err)
		}
		total += row[events].I
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(total)/float64(b.N), "events/op")
}

func BenchmarkP2CN100(b *testing.B)    { benchRun(b, 100, "jsq_d", 2) }
func BenchmarkP2CN1000(b *testing.B)   { benchRun(b, 1000, "jsq_d", 2) }
func BenchmarkRandomN100(b *testing.B) { benchRun(b, 100, "random", 0) }
func BenchmarkJSQN100(b *testing.B)    { benchRun(b, 100, "jsq", 0) }

// The rest of bench/compare.sh's configurations at n = 1000, so that the sweep binary's profile (bench/pgo.sh) weighs
// every policy's pick in the event loop: with random and JSQ at n = 100 alone, their draws' calls fell below the
// profile's hot threshold and stayed calls.
func BenchmarkRandomN1000(b *testing.B)     { benchRun(b, 1000, "random", 0) }
func BenchmarkJSQN1000(b *testing.B)        { benchRun(b, 1000, "jsq", 0) }
func BenchmarkRoundRobinN1000(b *testing.B) { benchRun(b, 1000, "round_robin", 0) }
func BenchmarkP2CReplacementN1000(b *testing.B) {
	benchModel(b, Model{}, point(b, 1000, 0.9, 2_000, 200, "jsq_d", 2, true), mEvents)
}

// smooth_wrr at n = 500 against round robin, per event (issue: within 2×): equal weights, so its recorded period is
// the round-robin sequence read in O(1).
func BenchmarkSmoothWRRN500(b *testing.B)  { benchRun(b, 500, "smooth_wrr", 0) }
func BenchmarkRoundRobinN500(b *testing.B) { benchRun(b, 500, "round_robin", 0) }

// The bulletin board's periodic board at T = 5 and 50, as bench/compare.sh times it against the supermarket (and as
// the sweep binary's profile, cmd/sweep/default.pgo, sees it: with T = 5 alone, the board's share of the profile was
// near its hot threshold, and the ring's Push in the board's loop was inlined by one profile and not the next).
func benchBoard(b *testing.B, pol string, d int, period float64) {
	p := boardPoint(b, 100, 0.9, 20_000, 2_000, period, periodic, 1, pol, d)
	benchModel(b, BulletinBoard{}, p, modeltest.Metric(b, BulletinBoard{}, "events"))
}

func BenchmarkBoardP2CN100(b *testing.B)    { benchBoard(b, "jsq_d", 2, 5) }
func BenchmarkBoardJSQN100(b *testing.B)    { benchBoard(b, "jsq", 0, 5) }
func BenchmarkBoardP2CN100T50(b *testing.B) { benchBoard(b, "jsq_d", 2, 50) }
func BenchmarkBoardJSQN100T50(b *testing.B) { benchBoard(b, "jsq", 0, 50) }
