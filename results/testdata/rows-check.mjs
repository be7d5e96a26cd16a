// Checks that a shard re-simulated from a spec reproduces the committed dataset: the shard's file has the committed
// file's columns with the same types, in order, and every one of its rows is a row of the committed file, cell for
// cell (EXCEPT ALL: a bag difference, so a row repeated in the shard must be repeated in the file). Then it shows the
// comparison can fail: the same query with one cell of the shard's first row changed must find exactly that row.
// Usage: node rows-check.mjs SHARD.parquet COMMITTED.parquet [may-be-empty]   (where @duckdb/node-api is installed)
// A shard without rows fails unless may-be-empty is given (a time-series table: a shard may hold no run with one).
// Prints "ok SHARD: N rows, all in COMMITTED (M rows)" and exits 0, or names what differs and exits 1.
import { DuckDBInstance } from '@duckdb/node-api';

const [shard, committed, empty] = process.argv.slice(2);
if (!committed) {
  console.error('usage: node rows-check.mjs SHARD.parquet COMMITTED.parquet');
  process.exit(2);
}
const conn = await (await DuckDBInstance.create(':memory:')).connect();
const rows = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJson();
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const id = (s) => `"${s.replaceAll('"', '""')}"`;
const fail = (msg) => { console.log(`${shard}: ${msg}`); process.exit(1); };

const cols = async (f) => (await rows(`DESCRIBE SELECT * FROM read_parquet(${q(f)})`)).map((c) => `${c.column_name} ${c.column_type}`);
const [a, b] = [await cols(shard), await cols(committed)];
if (a.join(', ') !== b.join(', ')) fail(`columns differ from ${committed}:\n  shard:     ${a.join(', ')}\n  committed: ${b.join(', ')}`);
const count = async (f) => Number((await rows(`SELECT count(*)::BIGINT AS n FROM read_parquet(${q(f)})`))[0].n);
const [n, m] = [await count(shard), await count(committed)];
if (n < 1 && empty === 'may-be-empty') {
  console.log(`ok ${shard}: no rows (${committed} has ${m})`);
  process.exit(0);
}
if (n < 1) fail('no rows');

const missing = async (select) => rows(`${select} EXCEPT ALL SELECT * FROM read_parquet(${q(committed)})`);
const extra = await missing(`SELECT * FROM read_parquet(${q(shard)})`);
if (extra.length > 0) {
  console.log(`${extra.length} of ${n} rows are not rows of ${committed}; the first:`);
  console.log(JSON.stringify(extra[0]));
  fail('does not reproduce the committed dataset');
}

// The check can fail: add 1 to the first numeric column of the shard's first row, and that row must be missing.
const numeric = a.map((c) => c.split(' ')).find(([, t]) => ['BIGINT', 'DOUBLE', 'INTEGER'].includes(t));
if (!numeric) fail('no numeric column to perturb');
const col = id(numeric[0]);
const perturbed = await missing(`SELECT * EXCLUDE (file_row_number) REPLACE (CASE WHEN file_row_number = 0 THEN ${col} + 1 ELSE ${col} END AS ${col})
  FROM read_parquet(${q(shard)}, file_row_number = true)`);
if (perturbed.length !== 1) fail(`with ${numeric[0]} + 1 in the first row the comparison found ${perturbed.length} missing rows, want 1`);
console.log(`ok ${shard}: ${n} rows, all in ${committed} (${m} rows); one changed cell (${numeric[0]}) is caught`);
