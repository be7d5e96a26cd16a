package resilience

import (
	"context"
	"reflect"
	"slices"
	"sort"
	"testing"

	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/results/schema"
)

// Causality: the timeline is a twin parameter (left out of the run seed), and a run with one more timeline change
// at time t draws exactly the same numbers as the run without it until t. Through the model's RunSeries with the same
// seed, every time-series row of a bin ending at or before t is identical, all columns; and some later row differs
// (the change did something), for each action, at a bin boundary (t = 5000) and inside a bin (5100: the bins ending
// by 5000 agree).
func TestCausality(t *testing.T) {
	if !params[pTimeline].Twin || !params[pBin].Twin {
		t.Fatal("timeline and bin must be twin parameters")
	}
	base := []model.Record{entry(t, 2000, "slow", "server=1", "factor=0.5"), entry(t, 3000, "restore", "server=1")}
	classes := []model.Record{srvClass(t, 4), srvClass(t, 1, "active=false")}
	set := []string{"rate=100", "timeout=150", "retries=3", "error_latency=5", "horizon=8000"}
	seed := model.Seed{Run: 42, Policy: 9}
	for _, at := range []float64{5000, 5100} {
		for _, extra := range []model.Record{
			entry(t, at, "kill", "server=0"), entry(t, at, "slow", "server=2", "factor=0.25"),
			entry(t, at, "pause", "server=3", "duration=300"), entry(t, at, "fail", "factor=0.5"),
			entry(t, at, "add"), entry(t, at, "rate", "rate=50"),
		} {
			for _, pol := range []string{"least_outstanding", "random"} {
				without := point(t, classes, base, pol, set...)
				with := point(t, classes, append(slices.Clone(base), extra), pol, set...)
				name := pol + " " + actionNames[extra[tAction].I] + " at " + ftoa(at)
				_, a, err := Model{}.RunSeries(context.Background(), without, seed)
				if err != nil {
					t.Fatal(err)
				}
				_, b, err := Model{}.RunSeries(context.Background(), with, seed)
				if err != nil {
					t.Fatal(err)
				}
				if len(a) != 32 || len(b) != 32 {
					t.Fatalf("%s: %d and %d rows, want 32 bins of 250 ms", name, len(a), len(b))
				}
				differ := false
				for i := range a {
					end := a[i][0].F + 250
					same := reflect.DeepEqual(a[i], b[i])
					if end <= at && !same {
						t.Errorf("%s: the bin ending at %v differs:\n%v\n%v", name, end, rowText(a[i]), rowText(b[i]))
					}
					differ = differ || !same
				}
				if !differ {
					t.Errorf("%s: no row differs: the change did nothing", name)
				}
			}
		}
	}
}

func rowText(r schema.Row) []string {
	var s []string
	for _, c := range r {
		s = append(s, c.String())
	}
	return s
}

// Common random numbers: policies compared at one point see the same requests. With many workers (no waiting),
// servers of one speed and constant hops, an attempt's latency at the balancer is 2·hop plus its work draw times the
// mean (or the error latency when its error draw says it fails), whatever server it went to: so the latencies and
// outcomes in dispatch order are identical, bit for bit, across policies, while their routing differs. Under load
// (queues, timeouts, retries) the offered counts and the first attempts' dispatch times are identical too.
func TestCommonRandomNumbers(t *testing.T) {
	type answer struct {
		latency float64
		outcome policy.Outcome
	}
	pols := []struct {
		name string
		set  []string
	}{{"round_robin", nil}, {"random", nil}, {"least_outstanding", []string{"tie=random"}}, {"peak_ewma", []string{"tau=100"}},
		{"jsq_d", []string{"d=2"}}}
	var ref []answer
	var refSent []int64
	for _, pol := range pols {
		p := point(t, []model.Record{srvClass(t, 4, "workers=1000")}, nil, pol.name, append([]string{"rate=300",
			"error_rate=0.3", "error_latency=5", "horizon=10000"}, pol.set...)...)
		out, f := recordPolicy(t, p, 11)
		seen := slices.Clone(f.seen)
		sort.SliceStable(seen, func(i, j int) bool { return seen[i].now-seen[i].latency < seen[j].now-seen[j].latency })
		var got []answer
		for _, o := range seen {
			got = append(got, answer{o.latency, o.outcome})
		}
		if ref == nil {
			ref, refSent = got, out.sent
			continue
		}
		if !slices.Equal(got, ref) {
			t.Errorf("%s: the answers in dispatch order differ from round robin's (%d and %d answers)", pol.name, len(got), len(ref))
		}
		if slices.Equal(out.sent, refSent) {
			t.Errorf("%s routes as round robin does (%v): the test compares nothing", pol.name, out.sent)
		}
	}

	var refOffered int64
	var refFirst []float64
	for i, pol := range pols {
		p := point(t, []model.Record{srvClass(t, 4)}, []model.Record{entry(t, 3000, "slow", "server=0", "factor=0.25")},
			pol.name, append([]string{"rate=180", "timeout=50", "retries=3", "horizon=10000"}, pol.set...)...)
		out, f := recordPolicy(t, p, 12)
		var first []float64
		for _, pk := range f.picks {
			if pk.req.Attempt == 0 {
				first = append(first, pk.req.Now)
			}
		}
		if i == 0 {
			refOffered, refFirst = out.offered, first
			if out.retries == 0 {
				t.Fatalf("no retries under load: the test compares nothing")
			}
			continue
		}
		if out.offered != refOffered || !slices.Equal(first, refFirst) {
			t.Errorf("%s under load: offered %d vs %d, first attempts' dispatch times equal: %v", pol.name, out.offered,
				refOffered, slices.Equal(first, refFirst))
		}
	}
}

// The time series is observation only (bin is a twin parameter): Run, RunSeries with 250 ms bins and RunSeries with
// 100 ms bins give the same metric row, cell for cell, on every scenario; and the row's cells are the run's counts.
func TestSeriesIsObservationOnly(t *testing.T) {
	seed := model.Seed{Run: 5, Policy: 7} // as run(t, p, 5)
	for _, s := range scenarios(t) {
		p := s.build(t, 8000)
		row, err := Model{}.Run(context.Background(), p, seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range []float64{250, 100} {
			q := slices.Clone(p)
			q[pBin] = model.FloatValue(b)
			again, rows, err := Model{}.RunSeries(context.Background(), q, seed)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(row, again) || len(rows) != int(8000/b) {
				t.Errorf("%s: bin %v changes the row or gives %d rows:\n%v\n%v", s.name, b, len(rows), rowText(row), rowText(again))
			}
		}
		out := run(t, p, 5)
		cols := metrics.Columns()
		cell := func(name string) schema.Cell {
			return row[slices.IndexFunc(cols, func(c schema.Column) bool { return c.Name == name })]
		}
		if cell("offered").I != out.offered || cell("succeeded").I != out.succeeded || cell("attempts").I != out.attempts ||
			cell("events").I != out.events || cell("mean_in_system").F != out.area/(8000-configOf(p).warmup) {
			t.Errorf("%s: the row's offered %v, succeeded %v, attempts %v, events %v, L %v are not the run's %d, %d, %d, %d, %v",
				s.name, cell("offered"), cell("succeeded"), cell("attempts"), cell("events"), cell("mean_in_system"),
				out.offered, out.succeeded, out.attempts, out.events, out.area/(8000-configOf(p).warmup))
		}
	}
}
