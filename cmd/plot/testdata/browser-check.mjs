// Checks plot's index.html in a real browser (headless Chromium, driven by puppeteer-core): the page loads from
// file:// with no console error, no failed request and no request to anything but file: and data: URLs; every
// <figure> shows a rendered figure (an <img> decoded with naturalWidth > 0, or an inline <svg> with a non-empty box);
// and at laptop (1366 px) and phone (390 px) widths the page itself does not scroll sideways (wide tables scroll in
// their own box). It saves the first screens at both widths to SHOTDIR/PREFIX-laptop.png and PREFIX-phone.png, and a
// screen and a half from the first spec's first table on to PREFIX-laptop-tables.png and PREFIX-phone-tables.png.
//
// Usage: node browser-check.mjs PAGE.html SHOTDIR [PREFIX]   (run where puppeteer-core is installed; see
// browser-check.sh). CHROMIUM names the browser (default /usr/bin/chromium). Exit 0 when every check passes, 1 with
// one line per failure otherwise.
import puppeteer from 'puppeteer-core';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [pagePath, shots, prefix = path.basename(process.argv[2] ?? '', '.html')] = process.argv.slice(2);
if (!pagePath || !shots) {
  console.error('usage: node browser-check.mjs PAGE.html SHOTDIR [PREFIX]');
  process.exit(2);
}
const url = pathToFileURL(path.resolve(pagePath)).href;
fs.mkdirSync(shots, { recursive: true });

const failures = [];
const fail = (msg) => { failures.push(msg); console.log(`FAIL ${msg}`); };
const args = ['--disable-gpu', '--hide-scrollbars'];
if (process.getuid && process.getuid() === 0) args.push('--no-sandbox'); // Chromium refuses to run as root otherwise
const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args });
try {
  for (const view of [
    { name: 'laptop', width: 1366, height: 768, screens: 3, mobile: false },
    { name: 'phone', width: 390, height: 844, screens: 4, mobile: true },
  ]) {
    const page = await browser.newPage();
    await page.setViewport({ width: view.width, height: view.height, isMobile: view.mobile, hasTouch: view.mobile, deviceScaleFactor: 1 });
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      const u = req.url();
      if (u.startsWith('file:') || u.startsWith('data:')) { req.continue(); return; }
      fail(`${view.name}: request to ${u.slice(0, 120)} (the page must load nothing but itself)`);
      req.abort();
    });
    page.on('requestfailed', (req) => {
      if (!req.url().startsWith('file:') && !req.url().startsWith('data:')) return; // reported above
      fail(`${view.name}: request failed: ${req.url().slice(0, 120)}: ${req.failure()?.errorText}`);
    });
    page.on('console', (msg) => { if (msg.type() === 'error') fail(`${view.name}: console error: ${msg.text()}`); });
    page.on('pageerror', (err) => fail(`${view.name}: page error: ${err.message}`));
    await page.goto(url, { waitUntil: 'load' });
    const r = await page.evaluate(async () => {
      // Decoding is asynchronous: wait for every image before judging it (a broken one rejects).
      await Promise.all([...document.images].map((img) => img.decode().catch(() => {})));
      const figures = [...document.querySelectorAll('figure')].map((f, i) => {
        const img = f.querySelector('img');
        const svg = f.querySelector('svg');
        const name = f.querySelector('figcaption')?.textContent || `figure ${i + 1}`;
        if (img) return { name, ok: img.complete && img.naturalWidth > 0 && img.naturalHeight > 0, what: `img ${img.naturalWidth}x${img.naturalHeight}` };
        if (svg) { const b = svg.getBoundingClientRect(); return { name, ok: b.width > 0 && b.height > 0, what: `svg ${b.width}x${b.height}` }; }
        return { name, ok: false, what: 'no img or svg' };
      });
      const loose = [...document.images].filter((img) => !img.closest('figure') && !(img.naturalWidth > 0)).map((img) => img.alt || img.src.slice(0, 60));
      return {
        figures, loose, sections: document.querySelectorAll('section').length, tables: document.querySelectorAll('table').length,
        scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, height: document.documentElement.scrollHeight,
      };
    });
    const bad = r.figures.filter((f) => !f.ok);
    for (const f of bad) fail(`${view.name}: figure ${f.name} did not render (${f.what})`);
    for (const l of r.loose) fail(`${view.name}: broken image ${l}`);
    if (r.figures.length === 0) fail(`${view.name}: no figures on the page`);
    // Against the screen's width, not innerWidth: a mobile browser widens its layout viewport to a wide page.
    if (r.scrollWidth > view.width || r.innerWidth > view.width) fail(`${view.name}: the page is ${r.scrollWidth} px wide (window ${r.innerWidth} px) on a ${view.width} px screen (it scrolls sideways)`);
    console.log(`${view.name} ${view.width} px: ${r.sections} sections, ${r.figures.length} figures (${r.figures.length - bad.length} rendered), ${r.tables} tables, page ${r.scrollWidth}x${r.height} px`);
    const file = path.join(shots, `${prefix}-${view.name}.png`);
    await page.screenshot({ path: file, clip: { x: 0, y: 0, width: view.width, height: Math.min(r.height, view.screens * view.height) } });
    console.log(`wrote ${file}`);
    // One screen from the first tables on: a spec's tables and claims, which are wider than a phone.
    const top = await page.evaluate(() => { const t = document.querySelector('section table'); return t ? t.getBoundingClientRect().top + window.scrollY - 60 : -1; });
    if (top >= 0) {
      const tables = path.join(shots, `${prefix}-${view.name}-tables.png`);
      await page.screenshot({ path: tables, clip: { x: 0, y: top, width: view.width, height: Math.min(r.height - top, 1.5 * view.height) } });
      console.log(`wrote ${tables}`);
    }
    await page.close();
  }
} finally {
  await browser.close();
}
console.log(failures.length === 0 ? 'browser check: ok' : `browser check: ${failures.length} failures`);
process.exit(failures.length === 0 ? 0 : 1);
