// Compares the rows of two lbsweep datasets with DuckDB, ignoring the Parquet metadata (revision, schema version):
// an order-independent hash of every row (select * exclude (filename)) and the row count, for the runs table and, when
// present, the _timeseries table.
// Usage: node samerows.mjs DATASET_DIR_A DATASET_DIR_B   (run where @duckdb/node-api is installed); exit 1 on a difference.
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, readdirSync } from 'node:fs';

const [a, b] = process.argv.slice(2);
const conn = await (await DuckDBInstance.create(':memory:')).connect();
const one = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJson()[0];
const digest = async (dir) => one(`SELECT count(*)::BIGINT::VARCHAR AS n, bit_xor(hash(t))::VARCHAR AS h,
  sum(hash(t) % 1000003)::VARCHAR AS s FROM (SELECT * EXCLUDE (filename) FROM read_parquet('${dir}/*.parquet', filename = true)) t`);
let failed = 0;
for (const sub of ['', '/_timeseries']) {
  const [da, db] = [a + sub, b + sub];
  const has = (d) => existsSync(d) && readdirSync(d).some((f) => f.endsWith('.parquet'));
  if (!has(da) && !has(db)) continue;
  if (has(da) !== has(db)) { console.log(`${sub || 'runs'}: only one side has it`); failed++; continue; }
  const [x, y] = [await digest(da), await digest(db)];
  const same = x.n === y.n && x.h === y.h && x.s === y.s;
  console.log(`${a.split('/').pop()}${sub}: ${x.n} rows ${same ? 'identical' : `DIFFER (${x.n}/${x.h} vs ${y.n}/${y.h})`}`);
  if (!same) failed++;
}
process.exit(failed === 0 ? 0 : 1);
