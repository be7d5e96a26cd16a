package sweep

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Shards merged are the unsharded dataset, byte for byte (DESIGN.md: "any shard split (after merging)").
func TestShardsMergeToUnshardedBytes(t *testing.T) {
	s := mustParse(t, smallSpec)
	whole := t.TempDir()
	if _, err := Run(context.Background(), s, Options{Dir: whole, Workers: 2, Every: -1}); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(whole, "small", FileName))
	for _, n := range []int{2, 3, 7} {
		dir := t.TempDir()
		for k := n - 1; k >= 0; k-- { // any order
			if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 1, Every: -1, Shard: Shard{k, n}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.ReadResults(dir); err != nil {
			t.Fatalf("%d unmerged parts do not read as the dataset: %v", n, err)
		}
		out, err := Merge(context.Background(), filepath.Join(dir, "small"), MergeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(out)
		if !bytes.Equal(got, want) {
			t.Errorf("%d shards merged differ from the unsharded dataset", n)
		}
		if ents, _ := filepath.Glob(filepath.Join(dir, "small", "part-*")); len(ents) != 0 {
			t.Errorf("parts left after merge: %v", ents)
		}
	}
	// A missing part is an error, for merge and for check/plot.
	dir := t.TempDir()
	Run(context.Background(), s, Options{Dir: dir, Every: -1, Shard: Shard{0, 2}})
	if _, err := Merge(context.Background(), filepath.Join(dir, "small"), MergeOptions{}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("merge with a part missing: %v", err)
	}
	if _, err := s.ReadResults(dir); err == nil || !strings.Contains(err.Error(), "shard is missing") {
		t.Errorf("reading half the shards: %v", err)
	}
}

func TestParseShardAndEnv(t *testing.T) {
	for in, want := range map[string]Shard{"0/1": {0, 1}, "3/4": {3, 4}, " 1 / 2 ": {1, 2}} {
		if got, err := ParseShard(in); err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"4/4", "-1/2", "1", "a/b", "0/0", "0/65537", "0/99999999999"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	cases := []struct {
		env  map[string]string
		want Shard
		ok   bool
	}{
		{map[string]string{}, Whole, false},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, Shard{2, 4}, true},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8"}, Shard{4, 8}, true},
		{map[string]string{"JOB_COMPLETION_INDEX": "0", "LBSWEEP_SHARDS": "3"}, Shard{0, 3}, true},
	}
	for _, c := range cases {
		got, ok, err := ShardFromEnv(env(c.env))
		if err != nil || ok != c.ok || got != c.want {
			t.Errorf("%v: %v %v %v", c.env, got, ok, err)
		}
	}
	for _, bad := range []map[string]string{
		{"JOB_COMPLETION_INDEX": "1"},
		{"JOB_COMPLETION_INDEX": "1", "LBSWEEP_SHARDS": "abc"},
		{"JOB_COMPLETION_INDEX": "0", "LBSWEEP_SHARDS": "70000"},
		{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "0"},
		{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "70000"},
	} {
		if _, _, err := ShardFromEnv(env(bad)); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, _, err := ShardFromEnv(env(map[string]string{"JOB_COMPLETION_INDEX": "1", "LBSWEEP_SHARDS": "abc"})); err == nil || !strings.Contains(err.Error(), "not an integer") {
		t.Errorf("LBSWEEP_SHARDS=abc: %v, want 'not an integer'", err)
	}
}

// A sweep process killed with SIGKILL at several moments, then rerun with the same command, ends with the same bytes
// as an uninterrupted sweep, having redone only the runs after its last flushed chunk. The process is this test
// binary (TestSweepHelperProcess).
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("kills sweeps")
	}
	specPath := filepath.Join(t.TempDir(), "many.toml")
	// 3000 short runs (about 1 s on 2 workers): chunks of 1000 rows are flushed twice before the end.
	spec := `name = "many"
model = "supermarket"
seed = 5
replications = 3000
[params]
n = 4
lambda = 0.8
horizon = 100.0
warmup = 20.0
policy = { name = "jsq_d", d = 2 }
`
	os.WriteFile(specPath, []byte(spec), 0o644)
	sweep := func(dir string) *exec.Cmd { return helperSweep("plain", dir, specPath, true) }
	ref := t.TempDir()
	began := time.Now()
	if out, err := sweep(ref).CombinedOutput(); err != nil {
		t.Fatalf("reference sweep: %v\n%s", err, out)
	}
	took := time.Since(began) // kill points are fractions of it, so a slow or busy machine does not defeat the test
	want, _ := os.ReadFile(filepath.Join(ref, "many", FileName))
	resumed := 0
	// Chunks are flushed after 1000 and 2000 of the 3000 runs: killing at 0.5 and 0.8 of the run time resumes from
	// them; 0.1 finds none yet; 1.2 kills a finished process. The last point (afterFirstChunk) kills as soon as the
	// first chunk is on disk, so resumption is exercised however load skews the timing.
	for _, frac := range killPoints {
		dir := t.TempDir()
		cmd := sweep(dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		after := killAt(dir, frac, took)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		// As if the kill had landed while the final file was being written: a dead writer's temporary file.
		os.MkdirAll(filepath.Join(dir, "many"), 0o755)
		os.WriteFile(filepath.Join(dir, "many", ".runs.parquet.999999999.tmp"), []byte("partial"), 0o644)
		var stderr bytes.Buffer
		again := helperSweep("plain", dir, specPath, false)
		again.Stderr = &stderr
		if err := again.Run(); err != nil {
			t.Fatalf("resume after kill at %v: %v\n%s", after, err, stderr.String())
		}
		if strings.Contains(stderr.String(), "resuming") {
			resumed++
		}
		t.Logf("killed at %v of %v: %s", after, took, strings.TrimSpace(stderr.String()))
		got, err := os.ReadFile(filepath.Join(dir, "many", FileName))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("killed at %v and resumed: dataset differs from the uninterrupted one (%v)", after, err)
		}
		if ents, _ := os.ReadDir(filepath.Join(dir, "many")); len(ents) != 1 {
			t.Errorf("killed at %v: left %d entries (want only %s)", after, len(ents), FileName)
		}
	}
	if resumed == 0 {
		t.Error("no kill point left finished runs to resume from: the test did not exercise resumption")
	}
	// Killed after the final rename, before its cleanup: the finished dataset, a dead writer's temporary file and a
	// progress directory. The rerun (up to date, or rerun when the binary is unstamped) leaves the dataset alone.
	os.WriteFile(filepath.Join(ref, "many", ".runs.parquet.999999999.tmp"), []byte("partial"), 0o644)
	os.MkdirAll(filepath.Join(ref, "many", ".progress-0-of-1"), 0o755)
	if out, err := sweep(ref).CombinedOutput(); err != nil {
		t.Fatalf("rerun of a finished sweep: %v\n%s", err, out)
	}
	if ents, _ := os.ReadDir(filepath.Join(ref, "many")); len(ents) != 1 {
		t.Errorf("finished sweep rerun: %d entries left, want only %s", len(ents), FileName)
	}
	if got, _ := os.ReadFile(filepath.Join(ref, "many", FileName)); !bytes.Equal(got, want) {
		t.Error("the rerun changed a finished dataset")
	}
}

// killPoints are the moments the kill tests kill a sweep of dataset "many", as fractions of an uninterrupted run's
// time, and afterFirstChunk: as soon as its first chunk of finished runs is on disk.
var killPoints = []float64{0.1, 0.5, 0.8, 1.2, afterFirstChunk}

const afterFirstChunk = -1

// killAt waits until the moment frac names for a sweep into dir started just now (took: the uninterrupted run's
// time) and returns how long it waited. afterFirstChunk polls for the first chunk file of dataset "many" (a chunk is
// renamed into place whole), giving up after 10·took.
func killAt(dir string, frac float64, took time.Duration) time.Duration {
	began := time.Now()
	if frac != afterFirstChunk {
		time.Sleep(time.Duration(frac * float64(took)))
		return time.Since(began)
	}
	first := filepath.Join(progressDir(filepath.Join(dir, "many"), Shard{0, 1}), chunkName(0))
	for time.Since(began) < 10*took {
		if _, err := os.Stat(first); err == nil {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	return time.Since(began)
}
