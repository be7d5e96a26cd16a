package policy

// StateBytes estimates the bytes one instance of the policy c (one dispatcher's state, as c.New(s) builds it) holds
// for n servers: the per-server arrays its New allocates (8 B a float64 or int64, 4 B an int32), and for the hashing
// policies their ring (about 16 B an entry: a position and a host; at least one entry per server). It informs the
// models' Bounds (memory estimates before a run), nothing computed. Policies with no per-server state give 0.
func StateBytes(c Config, n int) float64 {
	N := float64(n)
	ring := func(r RingConfig) float64 { return 16 * max(float64(r.MinRingSize), N) }
	switch c := c.(type) {
	case EWMAConfig:
		b := 8*N + 8*N // the estimates, the scorer's candidate list
		if c.Success {
			b += 16 * N
		}
		return b
	case LeastLatencyConfig:
		return 24 * N
	case PeakEWMAConfig:
		return 16 * N
	case JSQdConfig:
		if c.Replacement {
			return 0
		}
		return 4 * N // the persistent permutation of distinct sampling
	case SmoothWRRConfig:
		return 16 * N // weights and current weights
	case WRRExpandedConfig:
		return 8 * N
	case LeastOutstandingConfig, LeastRequestConfig:
		return 8 * N
	case RingHashConfig:
		return ring(c.RingConfig)
	case BoundedLoadConfig:
		return ring(c.RingConfig) + 8*N
	case HashP2CConfig:
		return ring(c.RingConfig) + 12*N
	}
	return 0
}
