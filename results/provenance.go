package results

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// SchemaVersion is the version of the results contract (column names, types and meaning). It changes when a
// released column changes meaning or type; adding a column does not change it.
const SchemaVersion = "1"

// Metadata keys written into every Parquet file's key-value metadata.
const (
	KeySpec          = "lbsweep.spec"           // the spec's full text
	KeySpecSHA256    = "lbsweep.spec_sha256"    // hex SHA-256 of the spec text
	KeyRunsSHA256    = "lbsweep.runs_sha256"    // hex SHA-256 of what determines the runs (experiments.Spec.RunsKey)
	KeyModel         = "lbsweep.model"          // the model's registered name
	KeyVersion       = "lbsweep.version"        // module version of the harness ("(devel)" for a local build)
	KeyRevision      = "lbsweep.vcs_revision"   // VCS revision the binary was built from, "+dirty" if modified; "unknown" when not stamped
	KeyGoVersion     = "lbsweep.go_version"     // the Go toolchain that built the binary
	KeySchemaVersion = "lbsweep.schema_version" // SchemaVersion
	// KeyTable names the table a file belongs to when it is not the runs table: TableSeries in the time-series table.
	// The runs table does not carry it (its files are unchanged by the time-series table's arrival).
	KeyTable = "lbsweep.table"
	// KeyPartBuilds, in a file merged from shard parts made by different builds (sweep merge -mixed-builds), lists
	// every part's build, one line per part: "part-K-of-N.parquet: " then BuildOf its metadata. Files of one build do
	// not carry it (a merged file is then the unsharded sweep's, byte for byte).
	KeyPartBuilds = "lbsweep.part_builds"
)

// MixedRevision is the KeyRevision (and KeyVersion, KeyGoVersion) of a file merged from parts of different builds;
// their builds are under KeyPartBuilds. It never equals a build's revision, so no sweep takes the file as its own.
const MixedRevision = "mixed"

// BuildOf names the build that wrote a file with metadata meta: its VCS revision, module version and Go version.
// Two files of one build give the same string. (Two dirty builds of one commit also do: the executable's hash is not
// in datasets, which stay byte-identical across machines.)
func BuildOf(meta []KV) string {
	return fmt.Sprintf("revision %s, version %s, %s", Lookup(meta, KeyRevision), Lookup(meta, KeyVersion), Lookup(meta, KeyGoVersion))
}

// CheckBuilds reads the footers of the dataset files of dir (as ReadDataset lists them) and returns an error naming
// two files that different builds wrote, or a file merged from parts of different builds (KeyPartBuilds), or nil.
func CheckBuilds(dir string) error {
	paths, err := DatasetFiles(dir)
	if err != nil {
		return err
	}
	var first string
	for i, p := range paths {
		meta, _, err := ReadMeta(p)
		if err != nil {
			return err
		}
		if Lookup(meta, KeyPartBuilds) != "" {
			return fmt.Errorf("results: %s was merged from parts of different builds (%s)", p, strings.ReplaceAll(Lookup(meta, KeyPartBuilds), "\n", "; "))
		}
		b := BuildOf(meta)
		if i == 0 {
			first = b
		} else if b != first {
			return fmt.Errorf("results: %s was made by another build (%s) than %s (%s): its runs ran other model code", p, b, filepath.Base(paths[0]), first)
		}
	}
	return nil
}

// TableSeries is the KeyTable value of the time-series table.
const TableSeries = "timeseries"

// SeriesDir is the subdirectory of a dataset directory DIR/NAME/ holding its time-series table (written by models
// that implement model.SeriesModel): one row per sample of a run, in files named as the runs table's beside it
// (runs.parquet, or part-K-of-N.parquet for a shard). ReadDataset(DIR/NAME) does not read it, and neither do
// pyarrow.dataset or arrow::open_dataset given the directory: they skip names that start with "_".
const SeriesDir = "_timeseries"

// Revision is the VCS revision this binary was built from, with "+dirty" when the work tree had changes, or
// "unknown" when the build was not stamped (go run, go test, -buildvcs=false). It is the KeyRevision metadata.
func Revision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	revision, dirty := "unknown", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && revision != "unknown" {
		revision += "+dirty"
	}
	return revision
}

// SeriesProvenance is the metadata of a time-series table: Provenance, then KeyTable = TableSeries.
func SeriesProvenance(spec, sha, modelName string) []KV {
	return append(Provenance(spec, sha, modelName), KV{KeyTable, TableSeries})
}

// Lookup returns the value of key in metadata meta, or "" when absent.
func Lookup(meta []KV, key string) string {
	for _, kv := range meta {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// Provenance returns the metadata of a dataset written from spec text with SHA-256 sha by model modelName. It holds
// no timestamps, host names or durations, so the same spec and binary give the same bytes.
func Provenance(spec, sha, modelName string) []KV {
	version := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
	}
	return []KV{
		{KeySpec, spec},
		{KeySpecSHA256, sha},
		{KeyModel, modelName},
		{KeyVersion, version},
		{KeyRevision, Revision()},
		{KeyGoVersion, runtime.Version()},
		{KeySchemaVersion, SchemaVersion},
	}
}
