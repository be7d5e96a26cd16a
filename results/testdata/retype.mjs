// Writes a copy of one lbsweep dataset file with one column cast to another DuckDB type, keeping the file's key-value
// metadata (so the copy still names its model): the wrong dataset .ci/run feeds to duckdb-types.mjs and
// polars-check.mjs to show that they fail on a column of the wrong type.
// Usage: node retype.mjs SRC.parquet COLUMN DUCKDB_TYPE OUT.parquet   (run where @duckdb/node-api is installed)
import { DuckDBInstance } from '@duckdb/node-api';

const [src, column, type, out] = process.argv.slice(2);
if (!out) {
  console.error('usage: node retype.mjs SRC.parquet COLUMN DUCKDB_TYPE OUT.parquet');
  process.exit(2);
}
const conn = await (await DuckDBInstance.create(':memory:')).connect();
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const kv = (await (await conn.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${q(src)})`))
  .getRowObjectsJson()).map((r) => `${q(r.k)}: ${q(r.v)}`).join(', ');
const id = `"${column.replaceAll('"', '""')}"`;
await conn.run(`COPY (SELECT * REPLACE (${id}::${type} AS ${id}) FROM read_parquet(${q(src)})) TO ${q(out)}
  (FORMAT parquet, KV_METADATA {${kv}})`);
console.log(`${out}: ${src} with ${column} cast to ${type}`);
