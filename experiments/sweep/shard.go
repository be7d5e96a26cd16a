package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"lbsweep/experiments"
)

// Shard selects a deterministic part K of N (0 ≤ K < N) of a sweep's runs. The parts are contiguous ranges of the
// run order balanced by the model's cost estimate (events ≈ λ·n·horizon, balls, ...), so N copies started by any batch
// system with an index (Slurm job arrays, Kubernetes Indexed Jobs) share the work with no coordinator, and their parts
// merge into the dataset an unsharded sweep writes.
type Shard struct{ K, N int }

// Whole is the unsharded sweep.
var Whole = Shard{0, 1}

func (sh Shard) String() string { return fmt.Sprintf("%d/%d", sh.K, sh.N) }

// sharded reports whether sh is a proper part.
func (sh Shard) sharded() bool { return sh.N > 1 }

// MaxShards bounds N in K/N (the flag, the batch system's environment and `sweep plan -shard N`): far above any
// array a batch system runs (Slurm's default MaxArraySize is 1001), and small enough that planning every shard takes
// well under a second.
const MaxShards = 1 << 16

// ParseShard reads "K/N", 0 ≤ K < N ≤ MaxShards.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(strings.TrimSpace(k))
	ni, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || ni < 1 || ki < 0 || ki >= ni {
		return Shard{}, fmt.Errorf("shard %q: want K/N with 0 ≤ K < N", s)
	}
	if ni > MaxShards {
		return Shard{}, fmt.Errorf("shard %q: N = %d is more than %d shards", s, ni, MaxShards)
	}
	return Shard{ki, ni}, nil
}

// ShardFromEnv reads the shard from the batch system's environment: Slurm job arrays (SLURM_ARRAY_TASK_ID, and
// SLURM_ARRAY_TASK_COUNT, or SLURM_ARRAY_TASK_MAX − SLURM_ARRAY_TASK_MIN + 1) or Kubernetes Indexed Jobs
// (JOB_COMPLETION_INDEX with LBSWEEP_SHARDS, since Kubernetes does not export the completion count). ok is false when
// none is set.
func ShardFromEnv(getenv func(string) string) (sh Shard, ok bool, err error) {
	atoi := func(key string) (int, bool, error) {
		v := getenv(key)
		if v == "" {
			return 0, false, nil
		}
		i, err := strconv.Atoi(v)
		if err != nil {
			return 0, true, fmt.Errorf("%s=%q is not an integer", key, v)
		}
		return i, true, nil
	}
	if id, set, err := atoi("SLURM_ARRAY_TASK_ID"); err != nil || set {
		if err != nil {
			return sh, false, err
		}
		n, nset, err := atoi("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return sh, false, err
		}
		lo, _, _ := atoi("SLURM_ARRAY_TASK_MIN")
		if !nset {
			hi, hset, err := atoi("SLURM_ARRAY_TASK_MAX")
			if err != nil || !hset {
				return sh, false, fmt.Errorf("SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX")
			}
			n = hi - lo + 1
		}
		sh = Shard{id - lo, n}
		if sh.N < 1 || sh.N > MaxShards {
			return sh, false, fmt.Errorf("Slurm array of %d tasks: need 1 to %d", sh.N, MaxShards)
		}
		if sh.K < 0 || sh.K >= sh.N {
			return sh, false, fmt.Errorf("Slurm array task %d is outside 0..%d", sh.K, sh.N-1)
		}
		return sh, true, nil
	}
	if id, set, err := atoi("JOB_COMPLETION_INDEX"); err != nil || set {
		if err != nil {
			return sh, false, err
		}
		n, nset, err := atoi("LBSWEEP_SHARDS")
		if err != nil {
			return sh, false, err
		}
		if !nset {
			return sh, false, fmt.Errorf("JOB_COMPLETION_INDEX is set: set LBSWEEP_SHARDS to the Job's completions too")
		}
		if n < 1 || n > MaxShards {
			return sh, false, fmt.Errorf("LBSWEEP_SHARDS=%d: need 1 to %d shards", n, MaxShards)
		}
		if id < 0 || id >= n {
			return sh, false, fmt.Errorf("JOB_COMPLETION_INDEX %d is outside 0..%d", id, n-1)
		}
		return Shard{id, n}, true, nil
	}
	return Whole, false, nil
}

// shardRange returns the runs [lo, hi) of shard sh: run i belongs to the shard whose share of the total cost contains
// the cost accumulated before i (a run's cost is its point's, so the sum goes point by point).
func shardRange(s *experiments.Spec, sh Shard) (lo, hi int) {
	if !sh.sharded() {
		return 0, s.Runs()
	}
	costs := make([]float64, s.Points())
	total := 0.0
	for p := range costs {
		pt, _ := s.Point(p)
		costs[p] = max(s.Model.Cost(pt), 1) * float64(s.Replications)
		total += costs[p]
	}
	bound := func(k int) int { // first run whose preceding cost reaches k/N of the total
		if k >= sh.N {
			return s.Runs()
		}
		target, acc := total*float64(k)/float64(sh.N), 0.0
		for p, c := range costs {
			per := c / float64(s.Replications)
			for r := range s.Replications {
				if acc >= target {
					return p*s.Replications + r
				}
				acc += per
			}
		}
		return s.Runs()
	}
	return bound(sh.K), bound(sh.K + 1)
}

// fileName is the dataset file of shard sh: runs.parquet unsharded, part-K-of-N.parquet otherwise.
func fileName(sh Shard) string {
	if !sh.sharded() {
		return FileName
	}
	return fmt.Sprintf("part-%d-of-%d.parquet", sh.K, sh.N)
}

// progressDir is where the finished runs of an unfinished sweep wait, hidden from dataset readers.
func progressDir(dir string, sh Shard) string {
	return fmt.Sprintf("%s/.progress-%d-of-%d", dir, sh.K, sh.N)
}
