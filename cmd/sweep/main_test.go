package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lbsweep/experiments"
	"lbsweep/experiments/sweep"
	"lbsweep/model"
	"lbsweep/results"
)

// cliRun calls run with buffers and returns the exit code, stdout and stderr.
func cliRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// cliWrite writes text to dir/name and returns the path.
func cliWrite(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cliNoCrash fails the test if out shows a Go panic or stack trace.
func cliNoCrash(t *testing.T, out string) {
	t.Helper()
	for _, s := range []string{"goroutine ", "panic", "runtime error"} {
		if strings.Contains(out, s) {
			t.Errorf("output contains %q:\n%s", s, out)
		}
	}
}

// cliTiny is a spec that runs in milliseconds: 2 λ × 2 policies × 2 replications = 8 runs at n = 4. CLAIMS is replaced
// by the [[expect]] tables of each test.
const cliTiny = `name = "tiny"
description = "CLI test: n = 4, 8 short runs"
model = "supermarket"
seed = 11
replications = 2

[params]
n = 4
horizon = 200.0
warmup = 20.0

[sweep]
lambda = [0.5, 0.9]
policy = ["random", "jsq"]
CLAIMS`

// At λ = 0.9 random dispatch to 4 servers (four M/M/1 queues, mean sojourn 10) is far slower than JSQ (about 2).
const cliPassing = `
[[expect]]
source = "certain: random is slower than JSQ at lambda = 0.9"
where = { lambda = 0.9, policy = "random" }
metric = "mean_sojourn"
greater_than = { policy = "jsq" }
`

const cliFailing = `
[[expect]]
source = "false on purpose: a mean sojourn of 1000"
where = { lambda = 0.9, policy = "jsq" }
metric = "mean_sojourn"
approx = 1000.0
tol = 0.0
`

func cliSpec(claims string) string { return strings.Replace(cliTiny, "CLAIMS", claims, 1) }

func TestList(t *testing.T) {
	code, out, errOut := cliRun(t, "-list")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr not empty: %s", errOut)
	}
	if !strings.Contains(out, "model supermarket") {
		t.Errorf("no model supermarket in:\n%s", out)
	}
	lines := strings.Split(out, "\n")
	for _, name := range []string{"random", "round_robin", "jsq_d", "jsq"} {
		found := false
		for _, l := range lines {
			if f := strings.Fields(l); len(f) > 0 && f[0] == name {
				found = true
			}
		}
		if !found {
			t.Errorf("policy %s not listed:\n%s", name, out)
		}
	}
	for _, p := range experiments.Models["supermarket"].Params() {
		if !strings.Contains(out, "  "+p.Name+" ") {
			t.Errorf("parameter %s not listed", p.Name)
		}
	}
}

func TestSchema(t *testing.T) {
	code, out, errOut := cliRun(t, "-schema", "supermarket")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "| column |") || !strings.HasPrefix(lines[1], "|---") {
		t.Fatalf("not a Markdown table:\n%s", out)
	}
	cols := model.Columns(experiments.Models["supermarket"])
	if len(lines) != 2+len(cols) {
		t.Errorf("%d rows, want %d columns", len(lines)-2, len(cols))
	}
	for i, c := range cols {
		if i+2 < len(lines) && !strings.HasPrefix(lines[i+2], "| `"+c.Name+"` |") {
			t.Errorf("row %d = %q, want column %s", i, lines[i+2], c.Name)
		}
	}
	for _, name := range []string{"experiment", "point", "replication", "seed", "n", "lambda", "horizon", "warmup",
		"policy", "d", "replacement", "mean_sojourn", "p50_sojourn", "p99_sojourn", "queue_tail", "mean_max_queue",
		"peak_queue", "jobs", "events", "theory_mean_sojourn", "theory_p99_sojourn", "theory_queue_tail", "theory_source"} {
		if !strings.Contains(out, "| `"+name+"` |") {
			t.Errorf("column %s missing", name)
		}
	}
	for _, l := range lines {
		if strings.Count(l, "|")-strings.Count(l, `\|`) != 5 {
			t.Errorf("row with a wrong number of cells: %q", l)
		}
	}

	code, _, errOut = cliRun(t, "-schema", "supermarkt")
	if code != 2 || !strings.HasPrefix(errOut, "sweep: ") || !strings.Contains(errOut, "supermarket") {
		t.Errorf("unknown model: exit %d, stderr %q; want 2 and the list of models", code, errOut)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"-frobnicate"},
		{"-o"},
		{"a.toml", "b.toml"},
		{"-j", "-1", "a.toml"},
		{"check"},
		{"check", "-frobnicate", "a.toml"},
	} {
		code, out, errOut := cliRun(t, args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if out != "" {
			t.Errorf("%q: stdout not empty: %s", args, out)
		}
		if errOut == "" {
			t.Errorf("%q: nothing on stderr", args)
		}
		cliNoCrash(t, errOut)
	}
}

func TestBadSpec(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, text, key string }{
		{"typo.toml", strings.Replace(cliSpec(""), "horizon", "horizn", 1), "params.horizn"},
		{"unstable.toml", strings.Replace(cliSpec(""), "0.9]", "1.1]", 1), "sweep.lambda"},
		{"syntax.toml", strings.Replace(cliSpec(""), "[sweep]", "[sweep", 1), ":12:"},
		{"claim.toml", cliSpec("\n[[expect]]\nsource = \"s\"\nmetric = \"queue_tail\"\napprox = 1.0\ntol = 0.1\n"), "expect[0].level"},
	} {
		path := cliWrite(t, dir, tc.name, tc.text)
		for _, args := range [][]string{{"-q", "-o", dir, path}, {"check", "-results", dir, path}} {
			code, out, errOut := cliRun(t, args...)
			if code != 1 {
				t.Errorf("%q: exit %d, want 1; stderr:\n%s", args, code, errOut)
			}
			if out != "" {
				t.Errorf("%q: stdout not empty: %s", args, out)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.HasSuffix(errOut, "\n") {
				t.Errorf("%q: stderr is not exactly one line: %q", args, errOut)
			}
			if !strings.HasPrefix(errOut, "sweep: "+path) {
				t.Errorf("%q: stderr does not start with \"sweep: %s\": %q", args, path, errOut)
			}
			if !strings.Contains(errOut, tc.key) {
				t.Errorf("%q: stderr does not name %s: %q", args, tc.key, errOut)
			}
			cliNoCrash(t, errOut)
		}
	}
	// A spec file that does not exist.
	missing := filepath.Join(dir, "nope.toml")
	code, _, errOut := cliRun(t, "-q", "-o", dir, missing)
	if code != 1 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "sweep: "+missing) {
		t.Errorf("missing spec: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "tiny")); !os.IsNotExist(err) {
		t.Errorf("a bad spec left an output directory behind (%v)", err)
	}
}

func TestRunAndCheck(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")

	// check before the dataset exists: exit 1 with a hint to run the sweep.
	spec := cliWrite(t, dir, "tiny.toml", cliSpec(cliPassing+cliFailing))
	code, stdout, errOut := cliRun(t, "check", "-results", out, spec)
	if code != 1 {
		t.Errorf("check without a dataset: exit %d, want 1", code)
	}
	if stdout != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "sweep: "+spec) ||
		!strings.Contains(errOut, "run `sweep -o "+out+" "+spec+"` first") {
		t.Errorf("check without a dataset: stdout %q, stderr %q", stdout, errOut)
	}
	cliNoCrash(t, errOut)

	// The sweep: quiet, so nothing on stderr; the dataset has one row per run.
	code, stdout, errOut = cliRun(t, "-q", "-j", "2", "-o", out, spec)
	if code != 0 {
		t.Fatalf("sweep: exit %d, stderr:\n%s", code, errOut)
	}
	if stdout != "" || errOut != "" {
		t.Errorf("-q sweep printed: stdout %q, stderr %q", stdout, errOut)
	}
	path := filepath.Join(out, "tiny", sweep.FileName)
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("dataset %s: %v", path, err)
	}
	tab, err := results.ReadDataset(filepath.Join(out, "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 8 {
		t.Errorf("%d rows, want 8", len(tab.Rows))
	}
	if entries, _ := os.ReadDir(filepath.Join(out, "tiny")); len(entries) != 1 {
		t.Errorf("dataset directory holds %d entries, want only %s", len(entries), sweep.FileName)
	}

	// check: one claim passes, one fails: exit 1 and the summary line.
	code, stdout, errOut = cliRun(t, "check", "-results", out, spec)
	if code != 1 {
		t.Errorf("check (one failing claim): exit %d, want 1; stdout:\n%s\nstderr:\n%s", code, stdout, errOut)
	}
	if !strings.Contains(stdout, "claims: 1 passed, 1 failed") {
		t.Errorf("check (one failing claim): no summary line in:\n%s", stdout)
	}
	if !strings.Contains(stdout, "certain: random is slower than JSQ") || !strings.Contains(stdout, ": ok") {
		t.Errorf("check (one failing claim): the passing claim is not reported ok:\n%s", stdout)
	}
	if !strings.Contains(stdout, "false on purpose") || !strings.Contains(stdout, "FAIL") {
		t.Errorf("check (one failing claim): the failing claim is not reported:\n%s", stdout)
	}
	cliNoCrash(t, stdout+errOut)

	// A spec with the passing claim only (its own dataset): exit 0.
	ok := cliWrite(t, dir, "tiny-ok.toml", strings.Replace(cliSpec(cliPassing), `name = "tiny"`, `name = "tiny-ok"`, 1))
	if code, _, errOut = cliRun(t, "-q", "-o", out, ok); code != 0 {
		t.Fatalf("sweep tiny-ok: exit %d, stderr:\n%s", code, errOut)
	}
	code, stdout, errOut = cliRun(t, "check", "-results", out, ok)
	if code != 0 || !strings.Contains(stdout, "claims: 1 passed, 0 failed") || errOut != "" {
		t.Errorf("check (passing claim only): exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, errOut)
	}

	// Both specs in one check: the counts add up, exit 1.
	code, stdout, _ = cliRun(t, "check", "-results", out, spec, ok)
	if code != 1 || !strings.Contains(stdout, "claims: 2 passed, 1 failed") {
		t.Errorf("check of two specs: exit %d, stdout:\n%s", code, stdout)
	}

	// Not quiet: progress and the summary go to stderr prefixed "sweep: ", nothing to stdout.
	code, stdout, errOut = cliRun(t, "-o", filepath.Join(dir, "loud"), spec)
	if code != 0 || stdout != "" {
		t.Fatalf("sweep: exit %d, stdout %q", code, stdout)
	}
	for _, l := range strings.Split(strings.TrimSuffix(errOut, "\n"), "\n") {
		if !strings.HasPrefix(l, "sweep: ") {
			t.Errorf("stderr line without the \"sweep: \" prefix: %q", l)
		}
	}
	if !strings.Contains(errOut, "8 runs") {
		t.Errorf("stderr does not report the 8 runs:\n%s", errOut)
	}
	// Same spec, same binary: byte-identical dataset for another worker count.
	a, errA := os.ReadFile(path)
	b, errB := os.ReadFile(filepath.Join(dir, "loud", "tiny", sweep.FileName))
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("datasets of -j 2 and -j default differ (%v, %v)", errA, errB)
	}
}

// A sweep whose context is cancelled (the command's first SIGINT, SIGTERM or SIGHUP) exits 130 and leaves no dataset.
func TestInterrupted(t *testing.T) {
	dir := t.TempDir()
	spec := cliWrite(t, dir, "tiny.toml", cliSpec(""))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"-q", "-o", filepath.Join(dir, "out"), spec}, &stdout, &stderr); code != 130 {
		t.Errorf("exit %d, want 130; stderr:\n%s", code, stderr.String())
	}
	if !strings.HasPrefix(stderr.String(), "sweep: ") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stderr %q, want one line prefixed \"sweep: \"", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "tiny", "runs.parquet")); !os.IsNotExist(err) {
		t.Errorf("an interrupted sweep left a dataset (%v)", err)
	}
}

// Every subcommand stops at the first signal (its context cancelled) with status 130 and one line, whatever phase it
// is in: loading a spec (before, plan, check and spec loading ignored the first signal), or merging (which stops between row groups: sweep.TestInterruptedMergeLeavesNothing).
func TestEveryCommandStopsOnFirstSignal(t *testing.T) {
	dir := t.TempDir()
	// A spec whose loading takes a second or two: 3·10^5 grid points to validate. (A FIFO, the slow spec of old, is
	// now refused before it is read: TestHostileInputsRefused.)
	slow := cliWrite(t, dir, "slow.toml", "name = \"slow\"\nmodel = \"supermarket\"\nseed = 1\n[params]\nhorizon = 10.0\npolicy = \"random\"\n"+
		"[sweep]\nn = [10, 11, 12]\nlambda = { from = 0.00001, to = 0.99999, step = 0.00001 }\n")
	spec := cliWrite(t, dir, "tiny.toml", cliSpec(""))
	for _, k := range []string{"0/2", "1/2"} {
		if code, _, errOut := cliRun(t, "-q", "-shard", k, "-o", filepath.Join(dir, "res"), spec); code != 0 {
			t.Fatalf("shard %s: %s", k, errOut)
		}
	}
	for _, args := range [][]string{
		{"-q", "-o", filepath.Join(dir, "out"), slow},
		{"plan", slow},
		{"check", "-results", dir, slow},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		var stdout, stderr bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- run(ctx, args, &stdout, &stderr) }()
		var code int
		select {
		case code = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("sweep %q: still running 10 s after the signal", args)
		}
		cancel()
		if code != 130 {
			t.Errorf("sweep %q: exit %d, want 130; stderr %q", args, code, stderr.String())
		}
		if code == 130 && strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("sweep %q: stderr %q, want one line", args, stderr.String())
		}
	}
	// A merge interrupted before it starts leaves the parts (and no runs.parquet or temporary file).
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"merge", filepath.Join(dir, "res", "tiny")}, &stdout, &stderr); code != 130 {
		t.Errorf("merge with a cancelled context: exit %d, want 130; stderr %q", code, stderr.String())
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "res", "tiny")); len(ents) != 2 {
		t.Errorf("interrupted merge left %d entries, want the 2 parts", len(ents))
	}
}

// sweep check refuses a dataset whose shard parts different builds wrote, naming both, unless -mixed-builds; so does
// sweep merge. (Before, both went ahead silently and the merged file stated one build.)
func TestCheckAndMergeRefuseMixedBuilds(t *testing.T) {
	dir := t.TempDir()
	spec := cliWrite(t, dir, "tiny.toml", cliSpec(""))
	res := filepath.Join(dir, "res")
	for _, k := range []string{"0/2", "1/2"} {
		if code, _, errOut := cliRun(t, "-q", "-shard", k, "-o", res, spec); code != 0 {
			t.Fatalf("shard %s: %s", k, errOut)
		}
	}
	part := filepath.Join(res, "tiny", "part-1-of-2.parquet")
	b, _ := os.ReadFile(part)
	if bytes.Count(b, []byte("unknown")) != 1 { // the test binary's revision, once: in the footer
		t.Fatalf("%s names revision unknown %d times, want once", part, bytes.Count(b, []byte("unknown")))
	}
	os.WriteFile(part, bytes.Replace(b, []byte("unknown"), []byte("0ther01"), 1), 0o644) // another build's part
	code, _, errOut := cliRun(t, "check", "-results", res, spec)
	if code != 1 || !strings.Contains(errOut, "revision 0ther01") || !strings.Contains(errOut, "revision unknown") || !strings.Contains(errOut, "-mixed-builds") {
		t.Errorf("check of mixed builds: exit %d, stderr %q; want 1 naming both builds and the flag", code, errOut)
	}
	if code, _, errOut := cliRun(t, "check", "-mixed-builds", "-results", res, spec); code != 0 {
		t.Errorf("check -mixed-builds: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := cliRun(t, "merge", filepath.Join(res, "tiny")); code != 1 || !strings.Contains(errOut, "revision 0ther01") {
		t.Errorf("merge of mixed builds: exit %d, stderr %q; want 1 naming the other build", code, errOut)
	}
	if code, _, errOut := cliRun(t, "merge", "-mixed-builds", filepath.Join(res, "tiny")); code != 0 {
		t.Errorf("merge -mixed-builds: exit %d, stderr %q", code, errOut)
	}
	meta, _, err := results.ReadMeta(filepath.Join(res, "tiny", sweep.FileName))
	if err != nil || !strings.Contains(results.Lookup(meta, results.KeyPartBuilds), "part-1-of-2.parquet: revision 0ther01") {
		t.Errorf("merged file's %s = %q (%v), want every part's build", results.KeyPartBuilds, results.Lookup(meta, results.KeyPartBuilds), err)
	}
}
