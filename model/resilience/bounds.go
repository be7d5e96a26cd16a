package resilience

import (
	"fmt"
	"math"

	"lbsweep/model"
	"lbsweep/model/policy"
)

// Bytes of the engine's state, for Bounds.
const (
	// serverBytes: a server's struct, its queue's first ring, and its entries in the per-server arrays of the
	// balancer, the breakers, outlier detection and the limiter (a few dozen 4- and 8-byte fields).
	serverBytes = 512
	// requestBytes: one request waiting in an unbounded queue (its attempt record and queue entry).
	requestBytes = 200
	// cellBytes: one schema.Cell of a time-series row.
	cellBytes = 80
	// seriesCopies: a bin's per-server lists are held about four times over until the chunk is written: as the
	// engine's sample, the row's list cells, the Parquet writer's column buffers (grown by doubling) and the encoded
	// pages (measured: TestFootprintWithinTwiceMeasured).
	seriesCopies = 4
	// keyBytes: each time-series row's identity and parameter columns in the sweep's builders, about 40 B a column.
	keyBytes = 40
)

// Bounds implements model.Model: the servers' state, the policy's, the keys' alias table and ownership maps, each
// server's LRU (an index over every key and a list of its capacity), the time series (horizon/bin rows, each with
// three to six lists of n values held about four times over until written, two dozen scalar cells, and the
// identity and parameter columns the sweep adds), and for
// an open loop whose rate exceeds the fleet's capacity with unbounded queues, the backlog that builds up.
func (Model) Bounds(p model.Point) model.Bounds {
	c := configOf(p)
	n := float64(c.n)
	b := n * serverBytes
	b += policy.StateBytes(policyConfig(p), c.n)
	terms := map[string]float64{"n": b}
	if k := float64(c.keys); k > 0 {
		kb := 28 * k // alias table (12 B a key) and its construction's work lists (16 B a key)
		if c.cache > 0 {
			kb += n * (4*k + 12*float64(c.cache))
		}
		kb += 8 * k // each key's owner before and after a change
		b += kb
		terms["keys"] = kb
	}
	row, rows := 0.0, 0.0
	if c.bin > 0 {
		rows = math.Floor(c.horizon/c.bin + 1)
		per := 3.0
		if c.cbThreshold > 0 {
			per += 2
		}
		if c.lim.algo != LimiterNone {
			per++
		}
		sb := math.Floor(c.horizon/c.bin+1) * (seriesCopies*per*n*8 + 26*cellBytes + keyBytes*float64(model.IdentityColumns+len(params)))
		b += sb
		terms["bin"] = sb
		row = 2*per*n*8 + keyBytes*float64(model.IdentityColumns+len(params)+26)
	}
	if c.rate > 0 && c.queue < 0 {
		capacity := 0.0 // attempts per ms the fleet serves at full speed
		for _, cl := range c.classes {
			capacity += float64(cl.count) * float64(cl.workers) * cl.speed / c.mean
		}
		if over := c.rate - capacity; over > 0 {
			bb := requestBytes * over * c.horizon
			b += bb
			terms["rate"] = bb
		}
	}
	by, top := "n", 0.0
	for _, k := range []string{"n", "keys", "bin", "rate"} {
		if terms[k] > top {
			by, top = k, terms[k]
		}
	}
	what := map[string]string{
		"n":    fmt.Sprintf("%d servers × about %.0f B", c.n, terms["n"]/max(n, 1)),
		"keys": fmt.Sprintf("%d keys (alias table, owners, and %d servers' LRU indexes of every key)", c.keys, c.n),
		"bin":  fmt.Sprintf("%.0f time-series bins × %d servers' lists (horizon/bin)", math.Floor(c.horizon/c.bin+1), c.n),
		"rate": "the backlog of an open loop above the fleet's capacity with unbounded queues",
	}[by]
	return model.Bounds{Bytes: b, MemoryBy: by, MemoryWhat: what, WorkBy: "horizon", SeriesRow: row, SeriesRows: rows}
}
