// ssdlab explore: rebuilding a run's block table at a frame (keyframes every K frames plus the
// frames' deltas) or right after a logged host write (the frame before it plus the write log),
// and undoing the die timeline's delta encoding. Pure functions of the recording.
'use strict';
const K = 32; // keyframe spacing
function blankState(init) {
  const n = init.length;
  const s = { st: new Uint8Array(n), valid: new Uint32Array(n), wp: new Uint32Array(n), erase: new Uint32Array(n), stream: new Uint8Array(n), closed: new Float64Array(n) };
  init.forEach((b, i) => { s.st[i] = b.state; s.valid[i] = b.valid; s.wp[i] = b.wp; s.erase[i] = b.erase; s.stream[i] = b.stream; s.closed[i] = b.closed_at; });
  return s;
}
function copyState(s) {
  return { st: s.st.slice(), valid: s.valid.slice(), wp: s.wp.slice(), erase: s.erase.slice(), stream: s.stream.slice(), closed: s.closed.slice() };
}
function applyDelta(s, d) {
  for (let j = 0; j + 6 < d.length; j += 7) {
    const b = d[j];
    s.st[b] = d[j + 1]; s.valid[b] = d[j + 2]; s.wp[b] = d[j + 3]; s.erase[b] = d[j + 4]; s.stream[b] = d[j + 5]; s.closed[b] = d[j + 6];
  }
}
function decodeDies(r) { // undo the delta encoding: absolute start and end
  const pairs = (v) => { const o = new Float64Array(v.length); let t = 0; for (let j = 0; j + 1 < v.length; j += 2) { t += v[j]; o[j] = t; o[j + 1] = t + v[j + 1]; } return o; };
  const S = r.dies.shapes; // [code, duration, transfer]
  r.dies.ops = r.dies.ops.map((v) => { // to [code, start, end, transfer] x n
    const o = new Float64Array(2 * v.length); let t = 0, longest = 0;
    for (let j = 0, q = 0; j + 1 < v.length; j += 2, q += 4) {
      const sh = S[v[j]];
      t += v[j + 1]; o[q] = sh[0]; o[q + 1] = t; o[q + 2] = t + sh[1]; o[q + 3] = sh[2]; longest = Math.max(longest, sh[1]);
    }
    o.longest = longest;
    return o;
  });
  r.dies.suspends = (r.dies.suspends || []).map(pairs);
  r.dies.held = r.dies.held.map(pairs);
}
// First op of a die's list that could still run at time a (ops are in start order).
function firstOpFrom(ops, a) {
  let lo = 0, hi = ops.length / 4;
  while (lo < hi) { const m = (lo + hi) >> 1; if (ops[4 * m + 1] < a - ops.longest) lo = m + 1; else hi = m; }
  return 4 * lo;
}
// Ops of each kind started at or before t on the shown dies.
function opsStarted(r, t) {
  const n = [0, 0, 0];
  r.dies.ops.forEach((ops) => {
    let lo = 0, hi = ops.length / 4;
    while (lo < hi) { const m = (lo + hi) >> 1; if (ops[4 * m + 1] <= t) lo = m + 1; else hi = m; }
    // Counting by kind needs a pass; cached per die as prefix counts.
    if (!ops.prefix) { ops.prefix = new Uint32Array(3 * (ops.length / 4 + 1)); for (let j = 0; j < ops.length / 4; j++) for (let k = 0; k < 3; k++) ops.prefix[3 * (j + 1) + k] = ops.prefix[3 * j + k] + ((ops[4 * j] & 3) === k ? 1 : 0); }
    for (let k = 0; k < 3; k++) n[k] += ops.prefix[3 * lo + k];
  });
  return n;
}
function prepare(r) {
  decodeDies(r);
  const F = r.frames;
  r.n = F.t_ns.length;
  r.keys = [];
  const s = blankState(r.init);
  for (let i = 0; i < r.n; i++) {
    applyDelta(s, F.delta[i]);
    if (i % K === 0) r.keys.push(copyState(s));
  }
  r.cache = { i: -1, s: null };
  // The write log: entry e's absolute time and where its changes start in W.ch.
  const W = r.writes || { dt_ns: [], n: [], ch: [] };
  r.wt = new Float64Array(W.dt_ns.length);
  r.woff = new Uint32Array(W.dt_ns.length + 1);
  for (let e = 0, t = 0, j = 0; e < W.dt_ns.length; e++) {
    t += W.dt_ns[e]; r.wt[e] = t; r.woff[e] = j;
    for (let c = 0; c < W.n[e]; c++) j += W.ch[j] % 2 ? 7 : 3;
    r.woff[e + 1] = j;
  }
  if (!F.writes || F.writes.length !== r.n) F.writes = new Array(r.n).fill(0);
  r.wcache = { e: -1, f: -1, s: null };
  return r;
}
function applyWrite(s, ch, a, b) { // one write entry's changes: see WriteLog in explore/model.rs
  for (let j = a; j < b;) {
    const blk = ch[j] >> 1;
    if (ch[j] % 2) { s.st[blk] = ch[j + 1]; s.valid[blk] = ch[j + 2]; s.wp[blk] = ch[j + 3]; s.erase[blk] = ch[j + 4]; s.stream[blk] = ch[j + 5]; s.closed[blk] = ch[j + 6]; j += 7; }
    else { s.valid[blk] = ch[j + 1]; s.wp[blk] = ch[j + 2]; j += 3; }
  }
}
function baseFrame(r, e) { // last frame taken before write entry e
  const Wf = r.frames.writes;
  let lo = 0, hi = r.n - 1;
  while (lo < hi) { const m = (lo + hi + 1) >> 1; if (Wf[m] <= e) lo = m; else hi = m - 1; }
  return lo;
}
function stateAtWrite(r, e) { // the blocks right after write entry e
  const f = baseFrame(r, e), c = r.wcache;
  if (c.e === e) return c.s;
  let s, from;
  if (c.f === f && c.e >= r.frames.writes[f] && c.e < e) { s = c.s; from = c.e + 1; }
  else { s = copyState(stateAt(r, f)); from = r.frames.writes[f]; }
  for (let j = from; j <= e; j++) applyWrite(s, r.writes.ch, r.woff[j], r.woff[j + 1]);
  r.wcache = { e: e, f: f, s: s };
  return s;
}
function stateAt(r, i) {
  if (r.cache.i === i) return r.cache.s;
  let s, from;
  if (r.cache.i >= 0 && r.cache.i < i && i - r.cache.i < K) { s = r.cache.s; from = r.cache.i + 1; }
  else { s = copyState(r.keys[Math.floor(i / K)]); from = Math.floor(i / K) * K + 1; }
  for (let j = from; j <= i; j++) applyDelta(s, r.frames.delta[j]);
  r.cache = { i: i, s: s };
  return s;
}
function frameAt(r, t) { // last frame with t_ns <= t (frame 0 if none)
  const T = r.frames.t_ns;
  let lo = 0, hi = r.n - 1;
  if (t >= T[hi]) return hi;
  while (lo < hi) { const m = (lo + hi + 1) >> 1; if (T[m] <= t) lo = m; else hi = m - 1; }
  return lo;
}
