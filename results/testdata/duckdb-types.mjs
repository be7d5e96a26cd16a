// Checks that DuckDB reads lbsweep dataset files with the schema's types: per column the type `sweep -schema MODEL`
// promises (int64 → BIGINT, double → DOUBLE, string → VARCHAR, bool → BOOLEAN, list<double> → DOUBLE[]), the
// schema's columns and no others, and count(*) equal to the row count of the file's footer. MODEL and the table come
// from the file's key-value metadata. polars-check.mjs does the same with polars.
// Usage: node duckdb-types.mjs SWEEP_BINARY FILE_OR_DIR...   (run where @duckdb/node-api is installed); a directory
// stands for every *.parquet under it. Exit 1 if any file fails.
import { DuckDBInstance } from '@duckdb/node-api';
import { checkFiles, compare } from './datasets.mjs';

const [sweep, ...args] = process.argv.slice(2);
if (!sweep || args.length === 0) {
  console.error('usage: node duckdb-types.mjs SWEEP_BINARY FILE_OR_DIR...');
  process.exit(2);
}
const type = { int64: 'BIGINT', double: 'DOUBLE', string: 'VARCHAR', bool: 'BOOLEAN', 'list<double>': 'DOUBLE[]' };
const want = (t) => type[t] ?? `no DuckDB type for schema type ${t}`;
const conn = await (await DuckDBInstance.create(':memory:')).connect();
const rows = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJson();

const { passed, failed, rows: total } = await checkFiles(sweep, args, async (path, { numRows }, { cols }) => {
  const src = `read_parquet('${path.replaceAll("'", "''")}')`;
  const got = (await rows(`DESCRIBE SELECT * FROM ${src}`)).map((c) => [c.column_name, c.column_type]);
  const errs = compare(got, cols, want);
  const [{ n }] = await rows(`SELECT count(*)::BIGINT::VARCHAR AS n FROM ${src}`);
  if (Number(n) !== numRows) errs.push(`DuckDB counted ${n} rows, the footer says ${numRows}`);
  return { errs, summary: `${n} rows, ${got.length} columns`, rows: Number(n) };
});
console.log(`duckdb: ${passed} files passed, ${failed} failed; ${total} rows`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
