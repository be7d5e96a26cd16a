package supermarket

import (
	"fmt"
	"math"

	"lbsweep/model"
	"lbsweep/model/policy"
)

// Per-server bytes of the engine (simulate): the sorted levels (three int32 arrays, sim.Levels), a sim.FIFO header
// (a slice and two uint32) and its first ring of 8 arrival times, which a server gets at its first job.
const (
	levelsBytes = 12
	fifoBytes   = 32 + 8*8
	engineBytes = levelsBytes + fifoBytes
	// cellBytes is one schema.Cell of a time-series row (its type, validity, scalars, string and list headers).
	cellBytes = 80
	// listCopies: a time-series row's list of queue lengths is held about four times over until the chunk is
	// written: as the engine's snapshot, the row's cell, the Parquet writer's column buffer (grown by doubling) and
	// the encoded page (measured: TestFootprintWithinTwiceMeasured).
	listCopies = 4
	// keyBytes: each time-series row's identity and parameter columns in the Parquet writer's column buffers, about
	// 40 B a column.
	keyBytes = 40
)

// engineFootprint is the memory of simulate's state for n servers at arrival rate λ per server up to the horizon:
// the per-server state, the tabulated departure means, and for λ ≥ 1 the backlog of arrival times that builds up
// ((λ − 1)·n·horizon jobs at 8 B, doubled for the rings' growth).
func engineFootprint(n, lambda, horizon float64) float64 {
	b := n*engineBytes + 8*min(n, 1<<16)
	if lambda > 1 {
		b += 16 * (lambda - 1) * n * horizon
	}
	return b
}

// Bounds implements model.Model: the engine's per-server state, the policy's (policy.StateBytes), the servers'
// rates, weights and latencies when they differ, and the unstable backlog. The work grows with the horizon.
func (Model) Bounds(p model.Point) model.Bounds {
	srv := serversOf(p)
	n := float64(srv.n)
	b := engineFootprint(n, p[pLambda].F, p[pHorizon].F)
	b += policy.StateBytes(policy.Registry[p[pPolicy].I].Configure(params, p), srv.n)
	if !srv.uniform || srv.weight != nil {
		b += 24 * n
	}
	return model.Bounds{Bytes: b, MemoryBy: "n", MemoryWhat: fmt.Sprintf("%d servers × about %.0f B", srv.n, b/max(n, 1)), WorkBy: "horizon"}
}

// Bounds implements model.Model: the supermarket's state, plus the board: one copy of the levels (k with
// dispatch_counts, one per dispatcher), one policy instance per dispatcher, each job's dispatcher when k > 1 and the
// policy observes completions, and the time series' rows (horizon/sample rows of four cells and track queue lengths,
// with the identity and parameter columns the sweep adds to each).
func (BulletinBoard) Bounds(p model.Point) model.Bounds {
	n, k := float64(p[bN].I), float64(p[bDispatchers].I)
	b := engineFootprint(n, p[bLambda].F, p[bHorizon].F)
	pc, ps := boardPolicyOf(p)
	b += k * policy.StateBytes(pc, int(p[bN].I))
	copies := 0.0
	if p[bPeriod].F > 0 {
		copies = 1
		if update(p[bUpdate].I) == dispatchCounts {
			copies = k
		}
	}
	b += copies * n * levelsBytes
	if k > 1 && pc.Traits(ps).Observe == policy.AtCompletion {
		b += n * fifoBytes
	}
	series, row, nrows := 0.0, 0.0, 0.0
	if s := p[bSample].F; s > 0 {
		rows := math.Floor(p[bHorizon].F/s) + 1
		nrows = rows
		list := 8 * float64(min(p[bTrack].I, p[bN].I))
		series = rows * (4*cellBytes + keyBytes*float64(model.IdentityColumns+len(boardParams)) + listCopies*list)
		row = 2*list + keyBytes*float64(model.IdentityColumns+len(boardParams)+4)
		b += series
	}
	what := fmt.Sprintf("%d servers × about %.0f B", p[bN].I, b/max(n, 1))
	by := "n"
	if series > b/2 {
		what, by = fmt.Sprintf("%.0f time-series rows (horizon/sample)", math.Floor(p[bHorizon].F/p[bSample].F)+1), "sample"
	}
	if copies > 1 && copies*n*levelsBytes > b/2 {
		what, by = fmt.Sprintf("%d board copies (dispatch_counts: one per dispatcher) × %d servers × %d B", p[bDispatchers].I, p[bN].I, levelsBytes), "dispatchers"
	}
	return model.Bounds{Bytes: b, MemoryBy: by, MemoryWhat: what, WorkBy: "horizon", SeriesRow: row, SeriesRows: nrows}
}
