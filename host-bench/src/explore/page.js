// ssdlab explore: replays recorded frames of a simulated run. Everything shown for a moment is
// read from the frame at or before the cursor time, or from the write log when stepping writes;
// nothing is simulated here. (After replay.js, which rebuilds the block table.)
// The data is gzipped JSON in base64 (explore/page.rs); the browser inflates it.
async function loadData() {
  const node = document.getElementById('data');
  const b = atob(node.textContent.trim());
  node.textContent = ''; // the DOM need not carry the data once read (a dumped DOM is smaller)
  const u = new Uint8Array(b.length);
  for (let i = 0; i < b.length; i++) u[i] = b.charCodeAt(i);
  const text = await new Response(new Blob([u]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
  return JSON.parse(text);
}
(async function () {
  const t0 = performance.now();
  const D = await loadData();
  const tLoaded = performance.now();
  const NS = 'http://www.w3.org/2000/svg';
  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs, parent) => {
    const e = tag.startsWith('svg:') ? document.createElementNS(NS, tag.slice(4)) : document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === 'text') e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]);
    }
    if (parent) parent.appendChild(e);
    return e;
  };
  const STATE_NAMES = ['free', 'open', 'closed', 'GC victim (relocating)', 'victim (erase pending/erasing)', 'reserved'];

  // Write entries of run r shown at the cursor (its state includes entries below this).
  function shownWrites(r) {
    if (UI.ws && UI.ws.run === r.idx) return UI.ws.e + 1;
    const t = UI.ws ? runs[UI.ws.run].wt[UI.ws.e] : times[UI.k];
    let n = r.frames.writes[frameAt(r, t)];
    if (UI.ws) while (n < r.wt.length && r.wt[n] <= t) n++;
    return n;
  }

  // ---- derived series ------------------------------------------------------------------------
  const wa = (F, i) => F.host_write_bytes[i] > 0 ? F.nand_write_bytes[i] / F.host_write_bytes[i] : 0;
  // The charts' intervals, computed by the recorder's side (explore/series.rs): interval k runs
  // from frame from_frame[k] to frame to_frame[k].
  function seriesOf(r) {
    const S = r.series, F = r.frames;
    return Object.assign({ t: S.to_frame.map((j) => F.t_ns[j]) }, S);
  }
  function binAt(r, i) { // last interval ending at or before frame i (-1 if none)
    const E = r.series.to_frame;
    let lo = 0, hi = E.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (E[m] <= i) lo = m + 1; else hi = m; }
    return lo - 1;
  }

  // ---- charts ----------------------------------------------------------------------------------
  const W = 400, H = 100, PADL = 38, PADB = 14;
  function chart(parent, title, tEnd, lines, refs) {
    const box = el('div', { class: 'chart' }, parent);
    el('div', { text: title }, box);
    const svg = el('svg:svg', { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', 'data-chart': title }, box);
    let ymax = 0;
    lines.forEach((l) => l.y.forEach((v) => { if (v != null && isFinite(v)) ymax = Math.max(ymax, v); }));
    (refs || []).forEach((r) => { if (r.y != null) ymax = Math.max(ymax, r.y); });
    ymax = ymax > 0 ? ymax * 1.08 : 1;
    const X = (t) => PADL + (W - PADL - 4) * (tEnd > tStart ? (t - tStart) / (tEnd - tStart) : 0);
    const Y = (v) => H - PADB - (H - PADB - 4) * (v / ymax);
    el('svg:text', { x: 2, y: 10, 'font-size': 9, text: fmt(ymax / 1.08) }, svg);
    el('svg:text', { x: 2, y: H - PADB, 'font-size': 9, text: '0' }, svg);
    el('svg:text', { x: W - 60, y: H - 2, 'font-size': 9, text: (tEnd / 1e6).toFixed(1) + ' ms' }, svg);
    if (tStart > 0) el('svg:text', { x: PADL, y: H - 2, 'font-size': 9, text: (tStart / 1e6).toFixed(1) + ' ms' }, svg);
    el('svg:line', { x1: PADL, y1: H - PADB, x2: W, y2: H - PADB, stroke: '#999', 'stroke-width': 0.5 }, svg);
    (refs || []).forEach((r) => {
      if (r.y == null) return;
      el('svg:line', { x1: PADL, x2: W - 4, y1: Y(r.y), y2: Y(r.y), stroke: r.color, 'stroke-dasharray': '4 3', 'stroke-width': 1 }, svg);
      el('svg:text', { x: PADL + 2, y: Y(r.y) - 2, 'font-size': 8, fill: r.color, text: r.label }, svg);
    });
    lines.forEach((l) => {
      let d = '';
      l.y.forEach((v, k) => { if (v == null) return; d += (d ? 'L' : 'M') + X(l.t[k]).toFixed(1) + ' ' + Y(v).toFixed(1); });
      el('svg:path', { d: d, fill: 'none', stroke: l.color, 'stroke-width': 1.2, 'vector-effect': 'non-scaling-stroke' }, svg);
    });
    const legend = lines.map((l) => `<span style="color:${l.color}">&#9644; ${l.name}</span>`).join(' ');
    el('div', {}, box).innerHTML = legend;
    const val = el('div', { class: 'cv' }, box);
    const cur = el('svg:line', { y1: 0, y2: H - PADB, stroke: '#000', 'stroke-width': 0.8, 'vector-effect': 'non-scaling-stroke' }, svg);
    const dot = el('svg:circle', { r: 2.5, fill: '#000' }, svg);
    return { svg: svg, cur: cur, dot: dot, val: val, X: X, Y: Y, lines: lines };
  }
  // The cursor at frame i; the readout is the last interval that ended by then (data-v-KEY holds
  // each line's exact value, data-from/to-frame the interval).
  function moveCursor(c, r, i) {
    const F = r.frames, x = c.X(F.t_ns[i]), k = binAt(r, i);
    c.cur.setAttribute('x1', x); c.cur.setAttribute('x2', x);
    c.svg.setAttribute('data-cursor-x', x.toFixed(2));
    c.svg.setAttribute('data-bin', k);
    if (k < 0) {
      c.dot.setAttribute('r', 0);
      c.val.textContent = 'no interval has ended yet';
      c.lines.forEach((l) => c.svg.removeAttribute('data-v-' + l.key));
      ['data-from-frame', 'data-to-frame'].forEach((a) => c.svg.removeAttribute(a));
      return;
    }
    const S = r.series, a = S.from_frame[k], b = S.to_frame[k], v = c.lines[0].y[k];
    c.svg.setAttribute('data-from-frame', a); c.svg.setAttribute('data-to-frame', b);
    c.lines.forEach((l) => c.svg.setAttribute('data-v-' + l.key, l.y[k] == null ? '' : String(l.y[k])));
    c.dot.setAttribute('r', v == null ? 0 : 2.5);
    if (v != null) { c.dot.setAttribute('cx', c.X(F.t_ns[b])); c.dot.setAttribute('cy', c.Y(v)); }
    c.val.textContent = c.lines.map((l) => l.name + ' ' + fmt(l.y[k])).join(', ') + ` over ${(F.t_ns[a] / 1e6).toFixed(3)}..${(F.t_ns[b] / 1e6).toFixed(3)} ms`;
  }
  function fmt(v) {
    if (v == null) return '-';
    const a = Math.abs(v);
    if (a >= 1e6) return (v / 1e6).toFixed(2) + 'M';
    if (a >= 1e4) return (v / 1e3).toFixed(1) + 'k';
    if (a >= 100) return v.toFixed(0);
    return v.toFixed(2);
  }

  // ---- one run's panel --------------------------------------------------------------------
  function colorFor(frac) { // empty: pale, full: dark blue
    const f = Math.max(0, Math.min(1, frac));
    const l = 96 - 62 * f;
    return `hsl(${210 - 60 * (1 - f)}, 70%, ${l}%)`;
  }
  function buildRun(r, idx, tEnd, root) {
    const m = r.meta;
    const box = el('div', { class: 'run', 'data-run': idx }, root);
    el('h2', { text: r.label }, box);
    el('div', { class: 'meta', text: `${m.drive}: ${m.dies} dies x ${m.blocks_per_die} blocks (each spanning ${m.planes_per_die} planes, ${m.mus_per_block} units of ${m.mu_bytes / 1024} KiB), OP ${m.op_pct.toFixed(1)}%, GC ${m.policy}${m.hot_cold_separation ? ' + separate GC stream' : ''}, PLP ${m.plp ? 'on' : 'off'}${m.power_cap_w ? ', cap ' + m.power_cap_w + ' W' : ''}, seed ${m.seed}${m.scale_divisor > 1 ? ', scale 1/' + m.scale_divisor : ''}` }, box);
    r.notes.forEach((n) => el('div', { class: 'notes', text: n }, box));
    const ro = el('div', { class: 'readout' }, box);
    r.ro = {};
    [['t_ms', 'time (ms)'], ['host_writes', 'host writes'], ['host_reads', 'host reads'], ['host_write_bytes', 'host bytes written'],
     ['nand_write_bytes', 'NAND bytes written'], ['gc_write_bytes', 'GC bytes written'], ['wa', 'WA (cumulative)'], ['gc_victims', 'GC victims'],
     ['erases', 'erases'], ['free_blocks', 'free blocks'], ['gc_stall_ns', 'GC stall (ns)'], ['throttled_ns', 'throttled (ns)'],
     ['energy_j', 'energy (J)'], ['host_trim_bytes', 'host bytes trimmed'], ['frame', 'frame']].forEach(([k, lbl]) => {
      const s = el('span', {}, ro);
      s.appendChild(document.createTextNode(lbl + ': '));
      r.ro[k] = el('b', { 'data-k': k }, s);
    });
    const legend = el('div', { class: 'legend' }, box);
    legend.innerHTML = 'fill = valid fraction; outline: <i style="border:1px dashed #bbb"></i>free <i style="border:2px solid #e0a800"></i>open host <i style="border:2px solid #8e44ad"></i>open GC <i style="border:1px solid #555;background:#88a"></i>closed <i style="border:3px solid #d00"></i>GC victim (relocating) <i style="box-shadow:0 0 0 2px #d00"></i>victim chosen in this frame <i style="border:2px dotted #f60"></i>erase pending <i style="background:#ccc"></i>reserved' +
      (m.sampled_blocks < m.blocks ? `<br>showing the ${m.sampled_blocks / m.blocks_per_die} first dies (${m.sampled_blocks} of ${m.blocks} blocks); the histogram covers all blocks` : '');
    const wrap = el('div', { class: 'mapwrap' }, box);
    const big = m.sampled_blocks <= 256, px = big ? 26 : 14;
    const dies = el('div', { class: 'dies' + (big ? ' big' : ''), 'data-blocks': m.sampled_blocks }, wrap);
    r.cells = [];
    const nd = m.sampled_blocks / m.blocks_per_die;
    const cols = Math.ceil(Math.sqrt(m.blocks_per_die * 2));
    for (let d = 0; d < nd; d++) {
      const dv = el('div', { class: 'die' }, dies);
      el('div', { class: 'lbl', text: 'die ' + d }, dv);
      const g = el('div', { class: 'grid' }, dv);
      g.style.gridTemplateColumns = `repeat(${Math.min(cols, m.blocks_per_die)}, ${px}px)`;
      for (let k = 0; k < m.blocks_per_die; k++) {
        const b = d * m.blocks_per_die + k;
        const c = el('div', { class: 'blk', 'data-b': b }, g);
        el('div', { class: 'wp' }, c);
        c.addEventListener('click', () => { UI.sel = { run: idx, block: b }; update(); writeHash(); });
        r.cells.push(c);
      }
    }
    r.arrows = el('svg:svg', { class: 'arrows', width: 1, height: 1 }, wrap);
    r.selInfo = el('div', { class: 'sel-info' }, box);
    const hb = el('div', { class: 'hist' }, box);
    r.histTitle = el('div', { text: 'valid units of closed blocks' }, hb);
    r.hist = el('svg:svg', { viewBox: '0 0 400 90', preserveAspectRatio: 'none' }, hb);
    const cs = el('div', { class: 'charts' }, box);
    const S = seriesOf(r);
    const line = (name, key, color) => ({ name: name, key: key, t: S.t, y: S[key], color: color });
    r.charts = [
      chart(cs, 'host IOPS', tEnd, [line('IOPS', 'iops', '#1f77b4')]),
      chart(cs, 'p99 latency (us)', tEnd, [line('p99', 'p99_us', '#d62728')]),
      chart(cs, 'write amplification', tEnd, [line('per interval', 'wa', '#ff7f0e'), line('cumulative', 'wa_cum', '#2ca02c')],
        [{ y: m.wa_greedy_ref, color: '#555', label: 'greedy model ' + m.wa_greedy_ref.toFixed(2) }]),
      chart(cs, 'free blocks', tEnd, [line('free', 'free_blocks', '#17becf')],
        [{ y: m.gc_threshold_blocks, color: '#d62728', label: 'GC starts' }, { y: m.host_reserve_blocks, color: '#8c564b', label: 'host writes wait' }]),
      chart(cs, 'GC stall (% of time)', tEnd, [line('GC stall', 'gc_stall_pct', '#9467bd')]),
      chart(cs, 'power (W), throttled (% of time)', tEnd, [line('avg power', 'power_w', '#e377c2'), line('throttled %', 'throttled_pct', '#7f7f7f')],
        [{ y: m.power_cap_w, color: '#d62728', label: 'cap' }]),
    ];
    const dt = el('div', { class: 'dietl' }, box);
    el('div', { text: 'every NAND operation around the cursor, per plane (zoom with the die window buttons): ' }, dt)
      .innerHTML += '<span style="color:#4a90d9">&#9632; read</span> <span style="color:#2ca02c">&#9632; program</span> <span style="color:#ff7f0e">&#9632; erase</span> (pale: GC work) <span style="color:#222">&#9644; data transfer</span> <span style="color:#d00">&#9633; read served in a suspension</span> <span style="background:#fff;outline:1px dashed #d00">&nbsp;&nbsp;</span> suspended <span style="color:#777">&#9632; waiting for the power governor</span>';
    r.opCount = el('div', { class: 'opcount' }, dt);
    const rows = r.dies.ops.length * m.planes_per_die;
    r.dieSvg = el('svg:svg', { viewBox: '0 0 400 ' + (ROWH * rows + 12), preserveAspectRatio: 'none', 'data-dies': r.dies.ops.length, 'data-planes': m.planes_per_die }, dt);
    r.dieSvg.style.height = (ROWH * rows + 12) * 1.2 + 'px';
    r.box = box;
  }

  const KIND_COLORS = ['#4a90d9', '#2ca02c', '#ff7f0e'], GC_COLORS = ['#a9cbef', '#9fd89f', '#ffc68a'], KIND_NAMES = ['read', 'program', 'erase'], ROWH = 11;
  // One row per plane of each shown die; a die-wide operation is drawn on every plane's row.
  function drawDies(r, t) {
    const svg = r.dieSvg, P = r.meta.planes_per_die, w = UI.win * 1e6, a = t - w / 2, b = t + w / 2, X = (x) => 40 + 356 * (x - a) / w;
    const tc = r.meta.t_cmd_ns || 0;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const frag = document.createDocumentFragment();
    let shown = 0;
    const bar = (s0, e0, y, h, attrs) => el('svg:rect', Object.assign({ x: X(Math.max(a, s0)), y: y, width: Math.max(0.4, X(Math.min(b, e0)) - X(Math.max(a, s0))), height: h }, attrs), frag);
    r.dies.ops.forEach((ops, d) => {
      for (let p = 0; p < P; p++) el('svg:text', { x: 1, y: 2 + (d * P + p) * ROWH + 8, 'font-size': 7, text: `die ${d} p${p}` }, frag);
      for (let j = firstOpFrom(ops, a); j + 3 < ops.length && ops[j + 1] <= b; j += 4) {
        const code = ops[j], s0 = ops[j + 1], e0 = ops[j + 2], x = ops[j + 3];
        if (e0 < a) continue;
        const kind = code & 3, gc = (code & 4) !== 0, insusp = (code & 8) !== 0, pl = code >> 4;
        const xs = kind === 1 ? s0 + tc : e0 - x;
        for (let p = pl ? pl - 1 : 0; p < (pl ? pl : P); p++) {
          const y = 2 + (d * P + p) * ROWH;
          shown++;
          bar(s0, e0, y, 8, { fill: gc ? GC_COLORS[kind] : KIND_COLORS[kind], stroke: insusp ? '#d00' : 'none', 'stroke-width': 0.8, 'data-op': `${d}.${p}`, 'data-kind': KIND_NAMES[kind], 'data-gc': gc ? 1 : 0, 'data-s': s0, 'data-e': e0 });
          if (x > 0 && xs + x >= a && xs <= b) bar(xs, xs + x, y + 6, 2, { fill: '#222' });
        }
      }
      const sp = r.dies.suspends[d] || [];
      for (let j = 0; j + 1 < sp.length; j += 2) {
        if (sp[j + 1] < a || sp[j] > b) continue;
        for (let p = 0; p < P; p++) bar(sp[j], sp[j + 1], 2 + (d * P + p) * ROWH + 1, 6, { fill: '#fff', stroke: '#d00', 'stroke-dasharray': '1,1', 'stroke-width': 0.5 });
      }
      const h = r.dies.held[d] || [];
      for (let j = 0; j + 1 < h.length; j += 2) {
        if (h[j + 1] < a || h[j] > b) continue;
        bar(h[j], h[j + 1], 2 + (d * P + P - 1) * ROWH + 8, 2, { fill: '#777' });
      }
    });
    const yb = ROWH * r.dies.ops.length * P + 10;
    el('svg:line', { x1: X(t), x2: X(t), y1: 0, y2: yb, stroke: '#000', 'stroke-width': 0.6 }, frag);
    el('svg:text', { x: 40, y: yb, 'font-size': 7, text: (a / 1e6).toFixed(3) + ' ms' }, frag);
    el('svg:text', { x: 356, y: yb, 'font-size': 7, text: (b / 1e6).toFixed(3) + ' ms' }, frag);
    svg.appendChild(frag);
    svg.setAttribute('data-shown', shown);
    svg.setAttribute('data-from', a);
    svg.setAttribute('data-to', b);
    const n = opsStarted(r, t);
    r.opCount.textContent = `NAND operations started by the cursor on these dies: ${n[0]} reads, ${n[1]} programs, ${n[2]} erases`;
    r.opCount.setAttribute('data-reads', n[0]); r.opCount.setAttribute('data-programs', n[1]); r.opCount.setAttribute('data-erases', n[2]);
  }

  function lastVictim(r, i) { // most recent victim chosen at or before frame i
    for (let j = i; j >= 0; j--) { const v = r.frames.victims[j]; if (v.length) return { frame: j, v: v[v.length - 1] }; }
    return null;
  }
  function cbScore(valid, mpb, age) { if (valid === 0) return Infinity; const u = valid / mpb; return (1 - u) * (age + 1) / (2 * u); }

  function drawHist(r, i, s) {
    const m = r.meta, svg = r.hist, mpb = m.mus_per_block;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const bins = 16, counts = new Array(bins).fill(0);
    if (m.sampled_blocks < m.blocks && r.frames.hist.length) r.frames.hist[i].forEach((c, k) => counts[k] = c);
    else for (let b = 0; b < s.st.length; b++) if (s.st[b] === 2) counts[Math.min(bins - 1, Math.floor(s.valid[b] * bins / (mpb + 1)))]++;
    const cmax = Math.max(1, ...counts), bw = 400 / bins;
    counts.forEach((c, k) => el('svg:rect', { x: k * bw + 1, width: bw - 2, y: 80 - 74 * c / cmax, height: 74 * c / cmax, fill: '#7aa6d6', 'data-bin': k, 'data-count': c }, svg));
    el('svg:text', { x: 2, y: 89, 'font-size': 8, text: '0 valid' }, svg);
    el('svg:text', { x: 340, y: 89, 'font-size': 8, text: mpb + ' valid' }, svg);
    const lv = lastVictim(r, i);
    let title = `valid units of closed blocks (${counts.reduce((a, b) => a + b, 0)} blocks)`;
    if (lv) {
      const x = Math.min(bins - 1, Math.floor(lv.v.valid * bins / (mpb + 1))) * bw + bw / 2;
      el('svg:line', { x1: x, x2: x, y1: 0, y2: 82, stroke: '#d00', 'stroke-width': 2 }, svg);
      el('svg:text', { x: x > 200 ? x - 3 : x + 3, 'text-anchor': x > 200 ? 'end' : 'start', y: 10, 'font-size': 9, fill: '#d00', text: 'last victim: block ' + lv.v.block + ', ' + lv.v.valid + ' valid' }, svg);
      const sc = (v) => v == null ? 'infinite (empty block)' : fmt(v);
      title += `; ${m.policy} chose block ${lv.v.block} with ${lv.v.valid} valid` + (m.policy === 'cost-benefit' ? `, score ${sc(lv.v.score)}` : ' (fewest valid on its die)') + ` at frame ${lv.frame}`;
      svg.setAttribute('data-victim', lv.v.block);
      // Cost-benefit: the best other candidates of the victim's die, scored right after the choice.
      const rivals = lv.v.rivals || [];
      rivals.forEach(([b, v, score], n) => {
        const xr = Math.min(bins - 1, Math.floor(v * bins / (mpb + 1))) * bw + bw / 2 + (n + 1) * 2;
        el('svg:line', { x1: xr, x2: xr, y1: 20 + n * 9, y2: 82, stroke: '#555', 'stroke-width': 1, 'stroke-dasharray': '2 2', 'data-rival': b, 'data-score': score == null ? '' : String(score) }, svg);
        el('svg:text', { x: xr > 200 ? xr - 3 : xr + 3, 'text-anchor': xr > 200 ? 'end' : 'start', y: 20 + n * 9, 'font-size': 8, fill: '#555', text: `block ${b}: ${v} valid, score ${sc(score)}` }, svg);
      });
      if (rivals.length) title += `, over ${rivals.map(([b, v, score]) => `block ${b} (${v} valid, ${sc(score)})`).join(', ')} (scores right after the choice)`;
    }
    r.histTitle.textContent = title;
  }

  function drawArrows(r, i, s, write) {
    const svg = r.arrows;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const wrap = svg.parentNode.getBoundingClientRect();
    svg.setAttribute('width', wrap.width); svg.setAttribute('height', wrap.height);
    // The victim being relocated now, or else the one chosen (and already moved) in this frame.
    let victim = -1;
    for (let b = 0; b < s.st.length; b++) if (s.st[b] === 3) victim = b;
    const picked = write ? [] : r.frames.victims[i];
    if (victim < 0 && picked.length && picked[picked.length - 1].block < s.st.length) victim = picked[picked.length - 1].block;
    if (victim < 0) return;
    const gcStream = r.meta.hot_cold_separation ? 1 : 0;
    const d = write ? [] : r.frames.delta[i];
    const targets = new Set();
    // GC-stream blocks written in this frame: open ones that changed, and ones closed in it.
    const before = i > 0 ? r.frames.host_write_bytes[i - 1] / r.meta.mu_bytes : 0;
    for (let j = 0; j + 6 < d.length; j += 7) {
      if (d[j + 5] !== gcStream || d[j] === victim) continue;
      if (d[j + 1] === 1 || (d[j + 1] === 2 && d[j + 6] >= before)) targets.add(d[j]);
    }
    if (!targets.size) for (let b = 0; b < s.st.length; b++) if (s.st[b] === 1 && s.stream[b] === gcStream) targets.add(b);
    const c0 = r.cells[victim].getBoundingClientRect();
    svg.setAttribute('data-victim', victim);
    targets.forEach((t) => {
      const c1 = r.cells[t].getBoundingClientRect();
      el('svg:line', { x1: c0.x + c0.width / 2 - wrap.x, y1: c0.y + c0.height / 2 - wrap.y, x2: c1.x + c1.width / 2 - wrap.x, y2: c1.y + c1.height / 2 - wrap.y, stroke: '#d00', 'stroke-width': 1.5, 'stroke-dasharray': '3 2', 'data-to': t }, svg);
    });
  }

  // Run r at time t: the frame at or before t, or, when stepping writes, right after write entry
  // e (its blocks exact; the counters are the frame's before it).
  function renderRun(r, t, e) {
    const i = e >= 0 ? baseFrame(r, e) : frameAt(r, t), F = r.frames, m = r.meta, s = e >= 0 ? stateAtWrite(r, e) : stateAt(r, i);
    const tt = e >= 0 ? r.wt[e] : F.t_ns[i];
    r.box.setAttribute('data-frame', i);
    r.box.setAttribute('data-t', tt);
    if (e >= 0) r.box.setAttribute('data-write', e); else r.box.removeAttribute('data-write');
    const set = (k, v, shown) => { r.ro[k].textContent = shown != null ? shown : String(v); r.ro[k].setAttribute('data-v', String(v)); };
    set('t_ms', tt, (tt / 1e6).toFixed(3));
    ['host_writes', 'host_reads', 'host_write_bytes', 'nand_write_bytes', 'gc_write_bytes', 'gc_victims', 'erases', 'free_blocks', 'gc_stall_ns', 'throttled_ns', 'host_trim_bytes'].forEach((k) => set(k, F[k][i]));
    set('energy_j', F.energy_j[i], F.energy_j[i].toFixed(4));
    set('wa', wa(F, i).toFixed(4));
    set('frame', i, i + ' / ' + (r.n - 1) + (e >= 0 ? ` + host write ${e + 1} of ${r.wt.length} logged (counters: the frame's)` : ''));
    const mpb = m.mus_per_block;
    for (let b = 0; b < r.cells.length; b++) {
      const c = r.cells[b], st = s.st[b];
      const key = st * 1e9 + s.valid[b] * 1e3 + s.stream[b] + (s.wp[b] * 7e-4);
      if (c._k === key) continue;
      c._k = key;
      c.className = 'blk s' + st + (st === 1 && s.stream[b] === 1 ? ' g' : '') + (UI.sel && UI.sel.run === r.idx && UI.sel.block === b ? ' sel' : '');
      c.style.background = colorFor(s.valid[b] / mpb);
      c.firstChild.style.height = st === 1 ? (100 * s.wp[b] / mpb) + '%' : '0';
      c.setAttribute('data-state', st); c.setAttribute('data-valid', s.valid[b]); c.setAttribute('data-erase', s.erase[b]); c.setAttribute('data-wp', s.wp[b]);
      c.title = `block ${b} (die ${Math.floor(b / m.blocks_per_die)}): ${STATE_NAMES[st]}${st === 1 ? (s.stream[b] ? ', GC stream' : ', host stream') : ''}\nvalid ${s.valid[b]} / ${mpb}, written ${s.wp[b]}, erased ${s.erase[b]}x`;
    }
    r.cells.forEach((c, b) => c.classList.toggle('sel', !!(UI.sel && UI.sel.run === r.idx && UI.sel.block === b)));
    r.cells.forEach((c) => c.classList.remove('vnew'));
    if (e < 0) F.victims[i].forEach((v) => { if (v.block < r.cells.length) r.cells[v.block].classList.add('vnew'); });
    if (UI.sel && UI.sel.run === r.idx && UI.sel.block < s.st.length) {
      const b = UI.sel.block, age = F.host_write_bytes[i] / m.mu_bytes - s.closed[b];
      r.selInfo.textContent = `selected block ${b} (die ${Math.floor(b / m.blocks_per_die)}): ${STATE_NAMES[s.st[b]]}, valid ${s.valid[b]} of ${mpb}, write pointer ${s.wp[b]}, erase count ${s.erase[b]}` +
        (s.st[b] === 2 ? `, cost-benefit score ${fmt(cbScore(s.valid[b], mpb, Math.max(0, age)))}` : '');
    } else r.selInfo.textContent = 'click a block for its numbers (or hover it)';
    drawHist(r, i, s);
    r.shown = { i: i, s: s, write: e >= 0 }; // arrows are drawn once every run is (one layout for all)
    r.charts.forEach((c) => moveCursor(c, r, i));
    drawDies(r, tt);
  }

  // ---- global state, fragment, controls -------------------------------------------------------
  const runs = D.runs.map((r, idx) => { r.idx = idx; return prepare(r); });
  const tEnd = Math.max(...runs.map((r) => r.frames.t_ns[r.n - 1]));
  const tStart = Math.min(...runs.map((r) => r.frames.t_ns[0])); // > 0 on a drive loaded with --from-drive
  const times = Array.from(new Set([].concat(...runs.map((r) => r.frames.t_ns)))).sort((a, b) => a - b);
  const WIN0 = Math.max(2, Math.round((tEnd - tStart) / 1e6 / 200));
  // ws: stepping writes, the state right after run ws.run's write entry ws.e (else null).
  const UI = { k: 0, ws: null, sel: null, playing: false, view: 'all', bp: {}, status: '', win: WIN0 };

  function idxOfTime(t) { let lo = 0, hi = times.length - 1; if (t >= times[hi]) return hi; while (lo < hi) { const m = (lo + hi + 1) >> 1; if (times[m] <= t) lo = m; else hi = m - 1; } return lo; }
  function readHash() {
    const h = new URLSearchParams(location.hash.replace(/^#/, ''));
    UI.ws = null;
    if (h.has('t')) UI.k = idxOfTime(Number(h.get('t')));
    else if (h.has('f')) UI.k = idxOfTime(runs[0].frames.t_ns[Math.min(runs[0].n - 1, Math.max(0, Number(h.get('f'))))]);
    UI.view = h.get('view') || 'all';
    UI.win = h.has('win') ? Math.max(0.01, Number(h.get('win'))) : WIN0;
    const sel = h.get('sel');
    if (sel) { const [a, b] = sel.split('.').map(Number); UI.sel = b === undefined ? { run: 0, block: a } : { run: a, block: b }; } else UI.sel = null;
    UI.bp = {};
    for (const k of ['gc', 'wa', 'vv', 'free']) if (h.has('bp-' + k)) { UI.bp[k] = Number(h.get('bp-' + k)); $('bp-' + k).value = h.get('bp-' + k); }
    if (h.has('w')) {
      const [a, b] = h.get('w').split('.').map(Number);
      if (runs[a] && b >= 0 && b < runs[a].wt.length) { UI.ws = { run: a, e: b }; UI.k = idxOfTime(runs[a].wt[b]); }
    }
    for (let n = Number(h.get('stepw') || 0); n > 0; n--) nextWrite();
    if (h.get('play') === '1') play(true);
  }
  function writeHash() {
    const p = new URLSearchParams();
    p.set('t', times[UI.k]);
    if (UI.ws) p.set('w', UI.ws.run + '.' + UI.ws.e);
    if (UI.view !== 'all') p.set('view', UI.view);
    if (UI.win !== WIN0) p.set('win', UI.win);
    if (UI.sel) p.set('sel', UI.sel.run + '.' + UI.sel.block);
    for (const k in UI.bp) if (!isNaN(UI.bp[k])) p.set('bp-' + k, UI.bp[k]);
    const h = '#' + p.toString();
    if (location.hash !== h) history.replaceState(null, '', h);
  }
  function update() {
    const t = UI.ws ? runs[UI.ws.run].wt[UI.ws.e] : times[UI.k];
    document.body.className = UI.view === 'map' ? 'hide-charts' : UI.view === 'charts' ? 'hide-map' : '';
    $('view').value = UI.view;
    $('scrub').value = UI.k;
    $('tlabel').textContent = (t / 1e6).toFixed(3) + ' ms';
    $('win').textContent = UI.win >= 1 ? UI.win.toFixed(0) + ' ms' : (UI.win * 1000).toFixed(0) + ' us';
    document.body.setAttribute('data-t', t);
    runs.forEach((r) => {
      const n = shownWrites(r);
      const own = UI.ws && UI.ws.run === r.idx; // the stepped run shows its entry, not a later frame at that instant
      renderRun(r, t, own || (UI.ws && n > r.frames.writes[frameAt(r, t)]) ? n - 1 : -1);
    });
    runs.forEach((r) => drawArrows(r, r.shown.i, r.shown.s, r.shown.write));
    $('status').textContent = UI.status;
  }
  // A breakpoint is hit at time index k when some run's frames at that moment (those after the
  // frame shown at the previous moment; several can share one instant) satisfy it.
  function hit(k) {
    const t = times[k];
    for (const r of runs) {
      const i = frameAt(r, t), F = r.frames;
      if (F.t_ns[i] !== t) continue;
      const i0 = k > 0 && F.t_ns[0] <= times[k - 1] ? frameAt(r, times[k - 1]) : -1;
      const was = (col, v) => i0 >= 0 ? col[i0] : v;
      const chosen = [];
      for (let j = i0 + 1; j <= i; j++) chosen.push(...F.victims[j]);
      if (UI.bp.gc > 0 && F.gc_victims[i] >= UI.bp.gc && was(F.gc_victims, 0) < UI.bp.gc) return `${r.label}: GC victim #${UI.bp.gc}`;
      if (UI.bp.wa > 0 && wa(F, i) > UI.bp.wa && (i0 < 0 || wa(F, i0) <= UI.bp.wa)) return `${r.label}: WA above ${UI.bp.wa}`;
      if (UI.bp.vv >= 0 && chosen.some((v) => v.valid >= UI.bp.vv)) return `${r.label}: victim with >= ${UI.bp.vv} valid`;
      if (UI.bp.free >= 0 && F.free_blocks[i] < UI.bp.free && was(F.free_blocks, Infinity) >= UI.bp.free) return `${r.label}: free blocks under ${UI.bp.free}`;
    }
    return null;
  }
  function step(n) { // advance up to n time steps, stopping at a breakpoint
    UI.ws = null;
    for (let j = 0; j < n; j++) {
      if (UI.k >= times.length - 1) { play(false); break; }
      UI.k++;
      const h = hit(UI.k);
      if (h) { play(false); UI.status = 'stopped at ' + h; document.body.setAttribute('data-stopped', UI.k); document.body.setAttribute('data-stop-reason', h); break; }
    }
  }
  let timer = null;
  function play(on) {
    UI.playing = on;
    $('play').innerHTML = on ? '&#10074;&#10074; pause' : '&#9654; play';
    if (timer) { clearInterval(timer); timer = null; }
    // The fragment is written when playing stops, not on every tick (browsers throttle
    // frequent history updates).
    if (on) { UI.status = ''; timer = setInterval(() => { step(Number($('speed').value)); update(); if (!UI.playing) writeHash(); }, 40); }
    else writeHash();
  }
  // The next host write any run completes: from the runs' write logs (exact: one write, the
  // blocks it changed), or past their end the next frame with more host writes (which says how
  // many it holds).
  function nextWrite() {
    let best = null;
    for (const r of runs) {
      const n = shownWrites(r);
      if (n < r.wt.length && (!best || r.wt[n] < best.t)) best = { run: r.idx, e: n, t: r.wt[n] };
    }
    if (best) {
      UI.ws = { run: best.run, e: best.e };
      UI.k = idxOfTime(best.t);
      UI.status = `${runs[best.run].label}: host write ${best.e + 1} of the ${runs[best.run].wt.length} logged`;
      document.body.setAttribute('data-step-writes', 1);
      document.body.setAttribute('data-step-run', best.run);
      document.body.setAttribute('data-step-entry', best.e);
      return;
    }
    if (UI.ws) { UI.k = idxOfTime(runs[UI.ws.run].wt[UI.ws.e]); UI.ws = null; }
    for (let k = UI.k + 1; k < times.length; k++) {
      for (const r of runs) {
        const i = frameAt(r, times[k]), F = r.frames;
        const i0 = frameAt(r, times[k - 1]); // the frame shown before this moment
        if (F.t_ns[i] !== times[k] || i === 0 || F.host_writes[i] === F.host_writes[i0]) continue;
        const n = F.host_writes[i] - F.host_writes[i0];
        UI.k = k;
        UI.status = n === 1 ? `${r.label}: host write #${F.host_writes[i]}` : `${r.label}: ${n} host writes at once (completed at one instant, or a merged frame past the end of the write log)`;
        document.body.setAttribute('data-step-writes', n);
        return;
      }
    }
  }
  function nextVictim(dir) {
    for (let k = UI.k + dir; k >= 0 && k < times.length; k += dir) {
      if (runs.some((r) => { const i = frameAt(r, times[k]); return r.frames.t_ns[i] === times[k] && r.frames.victims[i].length; })) { UI.k = k; return; }
    }
  }

  // ---- page text --------------------------------------------------------------------------
  $('title').textContent = D.title;
  document.title = 'ssdlab explore: ' + D.title;
  $('cmd').textContent = D.command;
  const L = $('lesson');
  D.text.forEach((p) => el('p', { text: p }, L));
  if (D.questions.length) {
    el('h3', { text: 'Questions (the answers come from these runs)' }, L);
    const ol = el('ol', { class: 'questions' }, L);
    D.questions.forEach((q, n) => {
      const li = el('li', { 'data-q': n }, ol);
      li.appendChild(document.createTextNode(q.q + ' '));
      const det = el('details', {}, li);
      el('summary', { text: 'answer' }, det);
      el('span', { class: 'answer', text: ' ' + q.answer }, det);
    });
  }
  const root = $('runs');
  runs.forEach((r, idx) => buildRun(r, idx, tEnd, root));
  $('scrub').max = times.length - 1;
  $('scrub').addEventListener('input', () => { UI.ws = null; UI.k = Number($('scrub').value); UI.status = ''; update(); writeHash(); });
  $('play').addEventListener('click', () => play(!UI.playing));
  $('next').addEventListener('click', () => { step(1); update(); writeHash(); });
  $('prev').addEventListener('click', () => { UI.ws = null; UI.k = Math.max(0, UI.k - 1); update(); writeHash(); });
  $('nextw').addEventListener('click', () => { nextWrite(); update(); writeHash(); });
  $('nextgc').addEventListener('click', () => { UI.ws = null; nextVictim(1); update(); writeHash(); });
  $('zin').addEventListener('click', () => { UI.win = Math.max(0.01, UI.win / 4); update(); writeHash(); });
  $('zout').addEventListener('click', () => { UI.win = Math.min((tEnd - tStart) / 1e6, UI.win * 4); update(); writeHash(); });
  $('view').addEventListener('change', () => { UI.view = $('view').value; update(); writeHash(); });
  for (const k of ['gc', 'wa', 'vv', 'free']) $('bp-' + k).addEventListener('change', () => { const v = $('bp-' + k).value; if (v === '') delete UI.bp[k]; else UI.bp[k] = Number(v); writeHash(); });
  document.addEventListener('keydown', (e) => { if (e.key === ' ' && e.target.tagName !== 'INPUT') { e.preventDefault(); play(!UI.playing); } });
  window.addEventListener('hashchange', () => { readHash(); update(); });
  readHash();
  update();
  document.body.setAttribute('data-load-ms', (tLoaded - t0).toFixed(0));
  document.body.setAttribute('data-render-ms', (performance.now() - t0).toFixed(0));
  document.body.setAttribute('data-ready', '1');
})().catch((e) => { document.body.setAttribute('data-error', String(e && e.message || e)); console.error('page error: ' + (e && e.message || e)); });
