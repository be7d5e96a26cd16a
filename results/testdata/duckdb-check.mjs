// Checks that DuckDB reads an lbsweep dataset: every column with its type, the rows, and the provenance metadata.
// Usage: node duckdb-check.mjs DATASET_DIR EXPECTED_COLUMNS_CSV   (run where @duckdb/node-api is installed)
import { DuckDBInstance } from '@duckdb/node-api';

const [dir, expected] = process.argv.slice(2);
const conn = await (await DuckDBInstance.create(':memory:')).connect();
const rows = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJson();
const glob = `${dir}/*.parquet`;

const cols = await rows(`DESCRIBE SELECT * FROM read_parquet('${glob}')`);
const names = cols.map((c) => c.column_name);
let failed = 0;
for (const want of expected.split(',')) {
  if (!names.includes(want)) { console.log(`missing column ${want}`); failed++; }
}
console.log(cols.map((c) => `${c.column_name}:${c.column_type}`).join(' '));
const [{ n }] = await rows(`SELECT count(*)::INTEGER AS n FROM read_parquet('${glob}')`);
const agg = await rows(`SELECT "lambda", round(avg(mean_sojourn), 4) AS mean, round(avg(theory_mean_sojourn), 4) AS theory,
  round(avg(queue_tail[1]), 4) AS s1 FROM read_parquet('${glob}') GROUP BY ALL ORDER BY ALL LIMIT 3`);
console.table(agg);
const meta = await rows(`SELECT decode(key) AS k FROM parquet_kv_metadata('${glob}')`);
for (const k of ['lbsweep.spec', 'lbsweep.spec_sha256', 'lbsweep.version', 'lbsweep.vcs_revision', 'lbsweep.go_version', 'lbsweep.schema_version']) {
  if (!meta.some((m) => m.k === k)) { console.log(`missing metadata ${k}`); failed++; }
}
if (n < 1) { console.log('no rows'); failed++; }
console.log(`duckdb: ${n} rows, ${names.length} columns, ${meta.length} metadata keys`);
console.log(`${failed === 0 ? 1 : 0} passed, ${failed === 0 ? 0 : 1} failed`);
process.exit(failed === 0 ? 0 : 1);
