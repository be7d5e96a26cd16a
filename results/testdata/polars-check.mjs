// Checks that polars (nodejs-polars, the Rust polars under Python's) reads lbsweep dataset files with the schema's
// types: per column the dtype `sweep -schema MODEL` promises (int64 → Int64 even where the column holds nulls,
// double → Float64, string → String, bool → Boolean, list<double> → List(Float64)), the schema's columns and no
// others, and the row count of the file's footer. MODEL and the table come from the file's key-value metadata.
// Usage: node polars-check.mjs SWEEP_BINARY FILE_OR_DIR...   (run where nodejs-polars and its platform package are
// installed); a directory stands for every *.parquet under it. Exit 1 if any file fails.
import pl from 'nodejs-polars';
import { checkFiles, compare } from './datasets.mjs';

const [sweep, ...args] = process.argv.slice(2);
if (!sweep || args.length === 0) {
  console.error('usage: node polars-check.mjs SWEEP_BINARY FILE_OR_DIR...');
  process.exit(2);
}
const dtype = { int64: pl.Int64, double: pl.Float64, string: pl.String ?? pl.Utf8, bool: pl.Bool, 'list<double>': pl.List(pl.Float64) };
const want = (t) => (dtype[t] ?? { toString: () => `no polars type for schema type ${t}` }).toString();

let nullableInts = 0;
const { passed, failed, rows } = await checkFiles(sweep, args, async (path, { numRows }, { cols }) => {
  const df = pl.readParquet(path);
  const errs = compare(df.columns.map((c) => [c, df.getColumn(c).dtype.toString()]), cols, want);
  if (df.height !== numRows) errs.push(`polars read ${df.height} rows, the footer says ${numRows}`);
  const ints = df.columns.filter((c) => df.getColumn(c).dtype.equals(pl.Int64) && df.getColumn(c).nullCount() > 0).length;
  nullableInts += ints;
  return { errs, summary: `${df.height} rows, ${df.width} columns (${ints} int64 with nulls)`, rows: df.height };
});
console.log(`polars ${pl.version ?? ''}: ${passed} files passed, ${failed} failed; ${rows} rows, ${nullableInts} int64 columns with nulls read as Int64`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
