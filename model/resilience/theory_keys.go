package resilience

import (
	"lbsweep/analytic"
	"lbsweep/model"
	"lbsweep/model/hashing"
	"lbsweep/model/policy"
	"lbsweep/results/schema"
)

// Theory sources of the keys' and caches' columns.
const (
	SourceCheRandom = "Che's LRU approximation (Che et al. 2002; analytic.CheHitRatio): a key-blind policy (random, two choices, …) picks from the past, never the current key, so each server's subsequence of the i.i.d. Zipf keys is i.i.d. with the whole law p"
	SourceCheRing   = "Che's LRU approximation per server over the keys its ring owns (first server in the fleet clockwise from the key's hash, hashing.NewRing with the policy's ring), p restricted and renormalized, weighted by the server's traffic share"
	SourceEpochs    = "per fleet epoch between the timeline's adds, weighted by the epoch's share of the window (an added server's cold start not modelled)"
	SourceMoved     = "keys moved by the first add: the share of the keys whose ring owner (first server in the fleet clockwise) changes on this ring; an ideal consistent hash moves 1/(n+1) (Karger et al. 1997)"
)

// fleetEpochs returns the fleets of point c over its window, one per stretch between the timeline's adds, with the
// stretches' shares of the window.
func fleetEpochs(c config) (fleets [][]bool, shares []float64) {
	fleet := make([]bool, 0, c.n)
	for _, cl := range c.classes {
		for range cl.count {
			fleet = append(fleet, cl.active)
		}
	}
	from := c.warmup
	window := c.horizon - c.warmup
	for _, ch := range c.timeline {
		if ch.action != Add {
			continue
		}
		if ch.at > from {
			fleets, shares = append(fleets, append([]bool(nil), fleet...)), append(shares, (ch.at-from)/window)
			from = ch.at
		}
		k := ch.server
		if k < 0 {
			for i, a := range fleet {
				if !a {
					k = i
					break
				}
			}
		}
		fleet[k] = true
	}
	return append(fleets, fleet), append(shares, (c.horizon-from)/window)
}

// cacheTheoryApplies reports whether point c's caches see an independent reference stream per server between
// fleet changes: no retries or hedges (a retry repeats its key), no kills (a kill empties a cache).
func cacheTheoryApplies(c config) bool {
	if c.cache == 0 || c.retries > 0 || c.hedging() {
		return false
	}
	for _, ch := range c.timeline {
		if ch.action == Kill {
			return false
		}
	}
	return true
}

// theoryKeys fills the keys' and caches' theory columns of point p (c resolved from it, tr its policy's traits) and
// returns their sources (none when nothing applies). A key-blind policy (not Traits.Keyed) decides from the state,
// which depends on past keys only, so the keys it sends to a server are still i.i.d. with the whole Zipf law: Che
// with the whole p applies to each server. ring_hash sends each key to its ring owner: Che per server over its keys.
// Other keyed policies (bounded_load, hash_p2c, tie = key) mix the key with the loads: no closed form, null.
func theoryKeys(p model.Point, c config, tr policy.Traits, cells map[schema.Column]schema.Cell) []string {
	var sources []string
	owners := keyOwners(p, c)
	if owners != nil && (c.cbThreshold > 0 || c.outlier.consecutive > 0) {
		owners = nil // breakers and ejections change the ring's fleet at times no closed form knows
	}
	if cacheTheoryApplies(c) && (!tr.Keyed || owners != nil) {
		pk := analytic.Zipf(c.keys, c.zipf)
		fleets, shares := fleetEpochs(c)
		h := 0.0
		for e, fleet := range fleets {
			if owners == nil {
				h += shares[e] * analytic.CheHitRatio(pk, float64(c.cache))
				continue
			}
			own := owners(fleet)
			per := make([][]float64, c.n)
			for r, k := range own {
				per[k] = append(per[k], pk[r])
			}
			for _, q := range per {
				total := 0.0
				for _, x := range q {
					total += x
				}
				if total == 0 {
					continue
				}
				for i := range q {
					q[i] /= total
				}
				h += shares[e] * total * analytic.CheHitRatio(q, float64(c.cache))
			}
		}
		cells[colTheoryHitRatio] = schema.Float(h)
		if owners == nil {
			sources = append(sources, SourceCheRandom)
		} else {
			sources = append(sources, SourceCheRing)
		}
		if len(fleets) > 1 {
			sources = append(sources, SourceEpochs)
		}
	}
	if owners != nil && c.keys > 0 {
		if fleets, _ := fleetEpochs(c); len(fleets) > 1 {
			before, after := owners(fleets[0]), owners(fleets[1])
			moved := 0
			for r := range before {
				if before[r] != after[r] {
					moved++
				}
			}
			cells[colTheoryKeysMoved] = schema.Float(float64(moved) / float64(c.keys))
			sources = append(sources, SourceMoved)
		}
	}
	return sources
}

// keyOwners returns, for a key-affine policy with a closed form (ring_hash, and hash_p2c with one candidate: the
// same ring), the function mapping a fleet to each key's server; nil for every other policy.
func keyOwners(p model.Point, c config) func(fleet []bool) []int {
	var rc policy.RingConfig
	switch pc := policyConfig(p).(type) {
	case policy.RingHashConfig:
		rc = pc.RingConfig
	case policy.HashP2CConfig:
		if pc.K != 1 {
			return nil
		}
		rc = pc.RingConfig // hash_p2c with one candidate is ring_hash over the same ring
	default:
		return nil
	}
	if c.keys == 0 {
		return nil
	}
	ps := c.policyServers()
	// The policy's ring (Salt 0, its min_ring_size, the servers' weights), built as ring_hash builds it.
	ring := hashing.NewRing(hashing.RingConfig{N: ps.N, Weights: ps.Weight, MinRingSize: rc.MinRingSize})
	return func(fleet []bool) []int {
		own := make([]int, c.keys)
		for r := range own {
			i := ring.Find(policy.KeyPosition(uint64(r + 1)))
			for j := 0; ; j++ { // ring_hash walks past the servers not in the fleet
				if k := ring.Owner(i + j); fleet[k] {
					own[r] = k
					break
				}
			}
		}
		return own
	}
}
