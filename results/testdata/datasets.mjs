// What the notebook-reader checks (polars-check.mjs, duckdb-types.mjs) need to know about an lbsweep dataset file
// without a Parquet library: its footer's row count and key-value metadata (which model and table wrote it), and the
// columns `sweep -schema MODEL` promises for that table. Plain Node, no packages.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

// parquetFiles expands the arguments into Parquet files: a file stays, a directory gives every *.parquet under it.
export function parquetFiles(args) {
  const out = [];
  const walk = (p) => {
    if (!statSync(p).isDirectory()) { out.push(p); return; }
    for (const e of readdirSync(p).sort()) {
      const q = join(p, e);
      if (statSync(q).isDirectory() || e.endsWith('.parquet')) walk(q);
    }
  };
  args.forEach(walk);
  return out;
}

// footer reads a Parquet file's FileMetaData (the Thrift compact struct before the closing "PAR1"; Apache Parquet
// format, parquet.thrift) and returns its num_rows (field 3) and key_value_metadata (field 5) as a Map.
export function footer(path) {
  const fd = openSync(path, 'r');
  try {
    const size = statSync(path).size;
    const tail = Buffer.alloc(8);
    readSync(fd, tail, 0, 8, size - 8);
    if (tail.toString('latin1', 4) !== 'PAR1') throw new Error(`${path}: not a Parquet file (no closing PAR1)`);
    const len = tail.readUInt32LE(0);
    if (len + 12 > size) throw new Error(`${path}: footer length ${len} exceeds the file`);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - 8 - len);
    const meta = new Compact(buf).struct();
    const kv = new Map((meta[5] ?? []).map((e) => [e[1].toString('utf8'), e[2]?.toString('utf8') ?? '']));
    return { numRows: Number(meta[3]), kv };
  } finally {
    closeSync(fd);
  }
}

// Compact decodes the Thrift compact protocol into plain values: a struct is an object keyed by field id, a list an
// array, binary a Buffer, integers BigInt (i64) or Number. Enough to read a Parquet footer; nothing is validated.
class Compact {
  constructor(buf) { this.b = buf; this.i = 0; }
  byte() { if (this.i >= this.b.length) throw new Error('parquet footer: truncated'); return this.b[this.i++]; }
  uvarint() {
    let v = 0n, shift = 0n, c;
    do { c = this.byte(); v |= BigInt(c & 0x7f) << shift; shift += 7n; } while (c & 0x80);
    return v;
  }
  zigzag() { const u = this.uvarint(); return (u >> 1n) ^ -(u & 1n); }
  value(t) {
    switch (t) {
      case 1: return true; // BOOLEAN_TRUE (in a struct field header)
      case 2: return false; // BOOLEAN_FALSE
      case 3: return this.byte();
      case 4: case 5: return Number(this.zigzag());
      case 6: return this.zigzag();
      case 7: { const v = this.b.readDoubleLE(this.i); this.i += 8; return v; }
      case 8: { const n = Number(this.uvarint()); const v = this.b.subarray(this.i, this.i + n); this.i += n; return v; }
      case 9: case 10: return this.list();
      case 11: return this.map();
      case 12: return this.struct();
      default: throw new Error(`parquet footer: unknown compact type ${t}`);
    }
  }
  list() {
    const h = this.byte();
    const n = (h >> 4) === 15 ? Number(this.uvarint()) : h >> 4;
    const t = h & 15;
    const out = [];
    for (let k = 0; k < n; k++) out.push(t === 1 || t === 2 ? this.byte() === 1 : this.value(t));
    return out;
  }
  map() {
    const n = Number(this.uvarint());
    if (n === 0) return new Map();
    const kt = this.byte();
    const out = new Map();
    for (let k = 0; k < n; k++) out.set(this.value(kt >> 4), this.value(kt & 15));
    return out;
  }
  struct() {
    const out = {};
    let id = 0;
    for (;;) {
      const h = this.byte();
      if (h === 0) return out;
      id = (h >> 4) ? id + (h >> 4) : Number(this.zigzag());
      out[id] = this.value(h & 15);
    }
  }
}

// schemaOf runs `SWEEP -schema MODEL` and returns the columns it promises, as [name, type] pairs with the schema's
// type names (string, int64, double, bool, list<double>): runs for the runs table, series for the time-series table
// (empty for a model without one).
export function schemaOf(sweep, model) {
  const md = execFileSync(sweep, ['-schema', model], { encoding: 'utf8' });
  const [runs, series = ''] = md.split(/\nTime series \(/);
  const table = (text) => [...text.matchAll(/^\| `([^`]+)` \| ([^|]+?) \|/gm)].map((m) => [m[1], m[2]]);
  return { runs: table(runs), series: table(series) };
}

// expected returns the columns a dataset file must hold, from its footer's lbsweep.model and lbsweep.table (the
// time-series table carries lbsweep.table = "timeseries", the runs table no lbsweep.table), with a cache of schemas
// per model; or throws naming the file when the metadata does not say.
export function expected(sweep, path, kv, cache = new Map()) {
  const model = kv.get('lbsweep.model');
  if (!model) throw new Error(`${path}: no lbsweep.model in the Parquet key-value metadata`);
  if (!cache.has(model)) cache.set(model, schemaOf(sweep, model));
  const table = kv.get('lbsweep.table') ?? 'runs';
  const s = cache.get(model);
  const cols = table === 'timeseries' ? s.series : table === 'runs' ? s.runs : null;
  if (!cols || cols.length === 0) throw new Error(`${path}: model ${model} has no ${table} table in sweep -schema`);
  return { model, table, cols };
}

// compare checks a reader's columns ([name, reader type] in file order) against the schema's ([name, schema type]),
// with want mapping a schema type to the reader's type name. It returns one message per difference: a missing, extra
// or misplaced column, or a column of another type.
export function compare(got, cols, want) {
  const errs = [];
  const have = new Map(got);
  for (const [name, type] of cols) {
    if (!have.has(name)) errs.push(`missing column ${name} (${type})`);
    else if (have.get(name) !== want(type)) errs.push(`column ${name}: ${have.get(name)}, want ${want(type)} (schema: ${type})`);
  }
  const names = new Set(cols.map(([n]) => n));
  for (const [name, t] of got) if (!names.has(name)) errs.push(`extra column ${name} (${t}) not in the schema`);
  if (errs.length === 0 && got.some(([n], i) => n !== cols[i][0])) errs.push(`columns in another order than the schema's`);
  return errs;
}

// checkFiles checks every dataset file of args (files and directories, as parquetFiles) with check(path, footer,
// expected), which reads the file with one reader and returns { errs, summary, rows } (errs: one message per
// difference, compare's). It prints an "ok" or "FAIL" line per file (and the messages under a failure) and returns
// { passed, failed, rows }; an exception from check fails its file with its first line.
export async function checkFiles(sweep, args, check) {
  const schemas = new Map();
  let passed = 0, failed = 0, rows = 0;
  for (const path of parquetFiles(args)) {
    let errs;
    let summary = '';
    try {
      const { numRows, kv } = footer(path);
      const exp = expected(sweep, path, kv, schemas);
      const r = await check(path, { numRows, kv }, exp);
      errs = r.errs;
      summary = `${exp.model} ${exp.table}: ${r.summary}`;
      rows += r.rows;
    } catch (e) {
      errs = [String(e.message ?? e).split('\n')[0]];
    }
    if (errs.length === 0) { passed++; console.log(`ok   ${path}: ${summary}`); continue; }
    failed++;
    console.log(`FAIL ${path}${summary ? `: ${summary}` : ''}`);
    for (const e of errs) console.log(`     ${e}`);
  }
  return { passed, failed, rows };
}
