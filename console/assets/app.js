// The seqd console: reads /console/api/ and draws it. No framework, no
// build step; it writes text with textContent only, never HTML.
'use strict';

const state = { cursors: [''], page: 0 };

function $(id) { return document.getElementById(id); }

function el(tag, text) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = String(text);
  return e;
}

async function get(path) {
  const r = await fetch('api/' + path, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  const body = await r.json().catch(() => ({ error: r.statusText }));
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function showError(err) { $('error').textContent = err ? String(err.message || err) : ''; }

function show(view) {
  for (const v of ['list-view', 'sequence-view', 'cluster-view']) $(v).hidden = v !== view;
}

function duration(seconds) {
  const units = [['y', 31557600], ['d', 86400], ['h', 3600], ['min', 60], ['s', 1]];
  for (const [u, n] of units) if (seconds >= n) return (seconds / n).toFixed(1) + ' ' + u;
  return seconds.toFixed(1) + ' s';
}

function usedBar(s) {
  const m = el('meter');
  m.min = 0; m.max = 1; m.high = 0.8; m.optimum = 0;
  m.value = s.total > 0 ? s.used / s.total : 0;
  const share = (100 * m.value).toFixed(m.value < 0.01 ? 4 : 1) + ' %';
  m.title = share;
  const span = el('span');
  span.append(m, ' ' + share);
  return span;
}

function projection(p) {
  if (!p) return '';
  const when = new Date(Date.now() + p.seconds * 1000);
  return duration(p.seconds) + ' (' + when.toISOString().slice(0, 16).replace('T', ' ') +
    ' UTC, at ' + p.per_second.toFixed(2) + '/s over ' + duration(p.window) + ')';
}

function seqLink(s) {
  const a = el('a', s.name);
  a.href = '#/seq/' + encodeURIComponent(s.schema) + '/' + encodeURIComponent(s.name);
  a.className = 'seq-link';
  return a;
}

function sequenceRow(s) {
  const tr = el('tr');
  const name = el('td');
  name.append(seqLink(s));
  const used = el('td');
  used.append(usedBar(s));
  const out = el('td', projection(s.projection));
  if (s.projection) out.className = 'warn';
  tr.append(el('td', s.schema), name, el('td', s.shape + (s.noorder ? ', noorder' : '')), el('td', s.called ? s.position : s.position + ' (not called)'),
    el('td', s.increment), used, out, el('td', s.cache), el('td', s.burned));
  return tr;
}

async function loadList() {
  show('list-view');
  const sort = $('sort').value;
  const params = new URLSearchParams({ q: $('search').value, sort: sort, limit: '50' });
  const cursor = state.cursors[state.page];
  if (sort === 'name') { if (cursor) params.set('after', cursor); } else if (cursor) params.set('offset', cursor);
  const body = await get('sequences?' + params);
  const tbody = $('sequences').tBodies[0];
  tbody.replaceChildren(...body.sequences.map(sequenceRow));
  state.cursors[state.page + 1] = body.next;
  $('next').disabled = !body.next;
  $('prev').disabled = state.page === 0;
  $('page-info').textContent = 'page ' + (state.page + 1) + ' of ' + body.total + ' sequences in the store' +
    (body.sequences.length === 0 && body.next ? ' (none here yet: next searches on)' : '');
}

function definition(dl, pairs) {
  dl.replaceChildren();
  for (const [k, v] of pairs) dl.append(el('dt', k), el('dd', v));
}

function chart(samples) {
  const svg = $('chart');
  const ns = 'http://www.w3.org/2000/svg';
  svg.replaceChildren();
  if (samples.length < 2) {
    $('chart-note').textContent = 'Sampled while this page is viewed: the chart fills in as samples are taken.';
  } else {
    $('chart-note').textContent = samples.length + ' samples since ' + new Date(samples[0].at).toISOString();
  }
  if (samples.length === 0) return;
  const t0 = samples[0].at, t1 = Math.max(samples[samples.length - 1].at, t0 + 1);
  const lo = Math.min(...samples.map(s => s.used)), hi = Math.max(lo + 1, ...samples.map(s => s.used));
  const pts = samples.map(s => [20 + 560 * (s.at - t0) / (t1 - t0), 180 - 160 * (s.used - lo) / (hi - lo)]);
  let line = document.createElementNS(ns, 'polyline');
  line.setAttribute('points', pts.map(p => p[0].toFixed(1) + ',' + p[1].toFixed(1)).join(' '));
  if (t1 - t0 < 1000) { // one moment only: a dot
    line = document.createElementNS(ns, 'circle');
    line.setAttribute('cx', pts[0][0].toFixed(1)); line.setAttribute('cy', pts[0][1].toFixed(1)); line.setAttribute('r', '4');
  }
  const top = document.createElementNS(ns, 'text');
  top.setAttribute('x', '22'); top.setAttribute('y', '14');
  const rate = (samples[samples.length - 1].used - samples[0].used) / Math.max((t1 - t0) / 1000, 0.001);
  top.textContent = 'used ' + lo + ' to ' + hi + ', ' + rate.toFixed(2) + ' values/s';
  svg.append(line, top);
}

async function loadSequence(schema, name) {
  show('sequence-view');
  const body = await get('sequence?' + new URLSearchParams({ schema: schema, name: name }));
  const s = body.sequence, d = body.definition;
  $('seq-title').textContent = s.schema + '.' + s.name;
  definition($('seq-definition'), [['type', s.type], ['shape', s.shape], ['position', s.position], ['increment', s.increment],
    ['start', d.start], ['min', d.min], ['max', d.max], ['cache', s.cache], ['cycle', s.cycle ? 'yes' : 'no'],
    ['noorder', s.noorder ? 'yes' : 'no'], ['unlogged', d.unlogged ? 'yes' : 'no'], ['reserved ahead', d.window],
    ['range used', (100 * s.used / s.total).toFixed(4) + ' %'], ['runs out', projection(s.projection) || 'not projected'],
    ['burned (crash, failover, release)', d.burned.crash + ', ' + d.burned.failover + ', ' + d.burned.release]]);
  const b = body.noorder_block;
  $('seq-block').textContent = b ? 'node ' + b.node + ': last ' + b.last + (b.called ? '' : ' (not called)') + ', ' + b.remaining +
    ' left in its block' + (b.ahead ? ', ' + b.ahead + ' in a block reserved ahead' : '') :
    (s.noorder ? 'this node holds no block now (each node shows its own)' : 'not NOORDER');
  chart(body.samples);
  const tbody = $('privileges').tBodies[0];
  tbody.replaceChildren(...body.privileges.map(g => { const tr = el('tr'); tr.append(el('td', g.role), el('td', g.privileges)); return tr; }));
}

async function loadCluster() {
  show('cluster-view');
  const c = await get('cluster');
  const pairs = [['mode', c.mode]];
  if (c.node) pairs.push(['node', c.node]);
  if (c.role) pairs.push(['role', c.role]);
  if (c.leader) pairs.push(['leader', c.leader]);
  pairs.push(['ready', c.error ? 'no: ' + c.error : c.ready]);
  if (c.term) pairs.push(['term', c.term + ' (won ' + c.leader_since + ')']);
  if (c.mode === 'cluster') pairs.push(['etcd last heard', duration(c.etcd_contact_seconds) + ' ago']);
  const by = Object.entries(c.by_protocol || {}).map(([p, n]) => p + ' ' + n).join(', ');
  pairs.push(['connections', c.connections + ' of ' + c.max_connections + (by ? ' (' + by + ')' : '')], ['sequences', c.sequences]);
  definition($('cluster'), pairs);
  $('cluster-detail').hidden = c.mode !== 'cluster';
  $('members').tBodies[0].replaceChildren(...(c.members || []).map(m => {
    const tr = el('tr');
    tr.append(el('td', m.name), el('td', (m.urls || []).join(' ')),
      el('td', m.error ? 'unreachable: ' + m.error : (m.leader ? 'healthy, raft leader' : 'healthy') + (m.learner ? ', learner' : '')), el('td', m.raft_term || ''));
    return tr;
  }));
  $('failovers').tBodies[0].replaceChildren(...(c.failovers || []).map(f => {
    const tr = el('tr');
    tr.append(el('td', f.at), el('td', f.from || '(none)'), el('td', f.to), el('td', duration(f.seconds)));
    return tr;
  }));
  const f = await get('failures');
  $('failures-note').textContent = f.failures.length + ' kept (the last 100 logged)' +
    (f.statements_shown ? '' : '; the statements\' text is shown to superusers only');
  $('failures').tBodies[0].replaceChildren(...f.failures.map(x => { const tr = el('tr'); tr.append(el('td', x.at), el('td', x.line)); return tr; }));
}

async function route() {
  showError(null);
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  try {
    if (parts[0] === 'seq' && parts.length === 3) await loadSequence(parts[1], parts[2]);
    else if (parts[0] === 'cluster') await loadCluster();
    else await loadList();
  } catch (err) {
    showError(err);
  }
}

function restart() { state.cursors = ['']; state.page = 0; route(); }

document.addEventListener('DOMContentLoaded', () => {
  $('search-form').addEventListener('submit', ev => { ev.preventDefault(); if (location.hash.length > 2) location.hash = '#/'; restart(); });
  $('sort').addEventListener('change', restart);
  $('next').addEventListener('click', () => { state.page++; route(); });
  $('prev').addEventListener('click', () => { state.page = Math.max(0, state.page - 1); route(); });
  window.addEventListener('hashchange', route);
  get('me').then(m => { $('me').textContent = m.user + (m.superuser ? ' (superuser)' : ''); }).catch(showError);
  route();
});
