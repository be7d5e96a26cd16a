package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"lbsweep/cmd/plot/render"
	"lbsweep/experiments"
	"lbsweep/experiments/claims"
	"lbsweep/results"
)

// manifestName is the file in OUT listing every spec plotted into OUT, so that REPORT.md and index.html cover them
// all whichever specs a call gives: one line per spec, "NAME<TAB>SPEC<TAB>RESULTS", sorted by NAME, SPEC and RESULTS
// relative to OUT (so the file is the same on every checkout; an absolute path where no relative one exists).
const manifestName = ".report-specs"

// reportEntry is one line of the manifest: a spec plotted into OUT and the results root its dataset was read from,
// both relative to OUT.
type reportEntry struct {
	Name, Spec, Results string
}

// entryOf is the manifest entry of spec, loaded from path and read from the results root resDir, for output
// directory out.
func entryOf(spec *experiments.Spec, path, resDir, out string) reportEntry {
	return reportEntry{spec.Name, relTo(out, path), relTo(out, resDir)}
}

// relTo is path relative to dir, or absolute when no relative path exists.
func relTo(dir, path string) string {
	ad, err1 := filepath.Abs(dir)
	ap, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return path
	}
	if r, err := filepath.Rel(ad, ap); err == nil {
		return filepath.ToSlash(r)
	}
	return ap
}

// resolve is a manifest path of OUT as a path to open from the working directory (relative to it when possible,
// as the report shows the spec's path).
func resolve(out, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(out, filepath.FromSlash(p))
	}
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, p); err == nil {
			return r
		}
	}
	return p
}

// readManifest reads OUT's manifest; a missing one is empty. A line that is not three tab-separated fields is an
// error naming the file and line.
func readManifest(out string) ([]reportEntry, error) {
	path := filepath.Join(out, manifestName)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var es []reportEntry
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 || f[0] == "" {
			return nil, fmt.Errorf("%s:%d: not NAME<TAB>SPEC<TAB>RESULTS (remove the file to start the report afresh)", path, n)
		}
		es = append(es, reportEntry{f[0], f[1], f[2]})
	}
	return es, sc.Err()
}

// manifestText is the manifest of es, one line per name (the first entry of a name wins), sorted by name.
func manifestText(es []reportEntry) []byte {
	seen := map[string]bool{}
	var keep []reportEntry
	for _, e := range es {
		if !seen[e.Name] {
			seen[e.Name] = true
			keep = append(keep, e)
		}
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].Name < keep[j].Name })
	var b bytes.Buffer
	for _, e := range keep {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", e.Name, e.Spec, e.Results)
	}
	return b.Bytes()
}

// section rebuilds e's report section without drawing: the spec and its dataset are read again, its claims judged,
// its tables rendered, and its figures listed as they are in out (a figure whose SVG is missing is an error: plot
// the spec again). The spec must still be named e.Name.
func (e reportEntry) section(out string) (render.Section, error) {
	path := resolve(out, e.Spec)
	spec, err := experiments.Load(path)
	if err != nil {
		return render.Section{}, err
	}
	if spec.Name != e.Name {
		return render.Section{}, fmt.Errorf("%s is now named %q", path, spec.Name)
	}
	t, err := spec.ReadResults(resolve(out, e.Results))
	if err != nil {
		return render.Section{}, err
	}
	sec := render.Section{Spec: spec, Verdicts: claims.Evaluate(spec.Expects, t)}
	if err := e.link(out, &sec); err != nil {
		return render.Section{}, err
	}
	for _, f := range spec.Figures {
		name := spec.Name + "-" + f.Name + ".svg"
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			return render.Section{}, fmt.Errorf("its figure %s is missing: plot %s again", name, path)
		}
		sec.Figures = append(sec.Figures, name)
	}
	for _, tb := range spec.Tables {
		tab, err := render.MakeTable(spec, tb, t)
		if err != nil {
			return render.Section{}, err
		}
		sec.Tables = append(sec.Tables, tab)
	}
	return sec, nil
}

// link sets the links of sec, e's section of the report in out: its spec, and the Parquet files of its dataset
// (results.DatasetFiles of RESULTS/NAME), each shown as a path from the working directory and linked from out.
func (e reportEntry) link(out string, sec *render.Section) error {
	spec := resolve(out, e.Spec)
	sec.SpecFile = render.Link{Text: filepath.ToSlash(spec), Href: e.Spec}
	files, err := results.DatasetFiles(filepath.Join(resolve(out, e.Results), e.Name))
	if err != nil {
		return err
	}
	sec.DataFiles = nil
	for _, f := range files {
		sec.DataFiles = append(sec.DataFiles, render.Link{Text: filepath.ToSlash(f), Href: relTo(out, f)})
	}
	return nil
}
