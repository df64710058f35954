// The monitor page: static HTML and one script, served by hypruse under its
// token folder. Every address in them is relative, so the token never has to
// be written into the page. Text from the journal is only ever set as text
// (never as markup): window titles and typed text come from applications.

export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>hypruse monitor</title>
<style>
  :root { color-scheme: dark; --bg:#16181d; --fg:#e6e6e6; --dim:#8a8f98; --ok:#3fb950; --warn:#d29922; --bad:#f85149; }
  * { box-sizing: border-box; }
  body { margin:0; font: 14px/1.4 system-ui, sans-serif; background:var(--bg); color:var(--fg); display:flex; flex-direction:column; height:100vh; }
  header { display:flex; gap:12px; align-items:center; padding:8px 12px; border-bottom:1px solid #2a2e36; flex-wrap:wrap; }
  header h1 { font-size:15px; margin:0 8px 0 0; }
  #state { font-weight:600; padding:2px 10px; border-radius:10px; background:#2a2e36; }
  #state[data-state=running] { color:var(--ok); }
  #state[data-state=paused] { color:var(--warn); }
  #state[data-state=stopped] { color:var(--bad); }
  #state-by, #activity, #conn { color:var(--dim); }
  button { font:inherit; padding:4px 14px; border-radius:6px; border:1px solid #444; background:#2a2e36; color:var(--fg); cursor:pointer; }
  button#stop { border-color:var(--bad); color:var(--bad); font-weight:700; }
  main { display:flex; flex:1; min-height:0; }
  #screens { flex:3; overflow:auto; padding:8px; display:flex; flex-wrap:wrap; gap:8px; align-content:flex-start; }
  figure { margin:0; }
  figure img { max-width:100%; display:block; border:1px solid #2a2e36; }
  figcaption { color:var(--dim); font-size:12px; }
  #feed-wrap { flex:2; border-left:1px solid #2a2e36; display:flex; flex-direction:column; min-width:280px; }
  #feed-head { padding:6px 10px; color:var(--dim); border-bottom:1px solid #2a2e36; }
  #feed { list-style:none; margin:0; padding:0; overflow:auto; flex:1; font:12px/1.35 ui-monospace, monospace; }
  #feed li { padding:4px 10px; border-bottom:1px solid #20232a; white-space:pre-wrap; word-break:break-word; }
  #feed li[data-outcome=refused] { color:var(--warn); }
  #feed li[data-outcome=error] { color:var(--bad); }
  #feed li[data-kind=observe] { color:var(--dim); }
  #problem { color:var(--bad); }
</style>
</head>
<body>
<header>
  <h1>hypruse monitor</h1>
  <span id="state" data-state="unknown">…</span>
  <span id="state-by"></span>
  <button id="pause" type="button">Pause</button>
  <button id="resume" type="button">Resume</button>
  <button id="stop" type="button">Stop</button>
  <span id="activity"></span>
  <span id="conn">connecting…</span>
  <span id="problem"></span>
</header>
<main>
  <section id="screens" aria-label="desktop"></section>
  <section id="feed-wrap" aria-label="journal">
    <div id="feed-head">journal</div>
    <ol id="feed"></ol>
  </section>
</main>
<script src="app.js"></script>
</body>
</html>
`;

export const PAGE_JS = `'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const screens = $('screens');
  const feed = $('feed');
  const shown = new Map(); // output -> { img, caption, version, want, loading }

  function setState(s) {
    const el = $('state');
    el.dataset.state = s.state;
    el.textContent = s.state;
    $('state-by').textContent = s.state === 'running' ? '' : (s.by ? 'by ' + s.by : '');
    const acting = (s.activity || []).filter((a) => a.state === 'active');
    $('activity').textContent = acting.length ? 'agent: ' + acting.map((a) => a.action || a.tool).join(', ') : (s.activity || []).length ? 'agent idle' : 'no agent running';
  }

  function figure(name) {
    let f = shown.get(name);
    if (f) return f;
    const fig = document.createElement('figure');
    const img = document.createElement('img');
    img.alt = 'output ' + name;
    img.dataset.output = name;
    img.dataset.version = '0';
    const cap = document.createElement('figcaption');
    cap.textContent = name;
    fig.append(img, cap);
    screens.append(fig);
    f = { fig, img, cap, version: 0, want: 0, loading: false };
    shown.set(name, f);
    return f;
  }

  // one image request per output at a time; a newer frame announced meanwhile is fetched next
  function load(name) {
    const f = shown.get(name);
    if (!f || f.loading || f.want <= f.version) return;
    const v = f.want;
    f.loading = true;
    const next = new Image();
    next.onload = () => {
      f.img.src = next.src;
      f.img.dataset.version = String(v);
      f.version = v;
      f.loading = false;
      load(name);
    };
    next.onerror = () => {
      f.loading = false;
      setTimeout(() => load(name), 500);
    };
    next.src = 'frame/' + encodeURIComponent(name) + '?v=' + v;
  }

  function frame(m) {
    const f = figure(m.output);
    if (!f.agent) f.cap.textContent = m.output + ' · ' + m.geometry.width + 'x' + m.geometry.height + ' at ' + m.geometry.x + ',' + m.geometry.y + ' · scale ' + m.scale;
    f.want = Math.max(f.want, m.version);
    load(m.output);
  }

  // background mode: the agent's windows out of the person's sight, each a view of its own
  function agent(views) {
    for (const v of views) {
      const f = figure(v.view);
      f.fig.dataset.agent = v.workspace;
      f.img.alt = 'agent window ' + v.window;
      f.cap.textContent = 'agent (background) · workspace ' + v.workspace + ' · ' + v.class + ' "' + v.title + '"' + (v.note ? ' · ' + v.note : '');
      f.agent = true;
    }
  }

  function outputs(names) {
    for (const [name, f] of shown) {
      if (!names.includes(name)) {
        f.fig.remove();
        shown.delete(name);
      }
    }
    for (const n of names) figure(n);
  }

  function describe(r) {
    const t = (r.ts || '').replace('T', ' ').replace(/\\.\\d+Z$/, 'Z');
    if (r.kind === 'session') return t + '  session ' + r.event + ' (pid ' + r.pid + ')';
    const parts = [t, r.kind === 'act' ? 'act' : 'observe', r.tool || '?'];
    if (r.args && Object.keys(r.args).length) parts.push(JSON.stringify(r.args));
    parts.push('→ ' + (r.outcome || '?') + (r.dry ? ' (dry run)' : '') + (typeof r.ms === 'number' ? ' ' + r.ms + ' ms' : ''));
    let text = parts.join('  ');
    if (r.code) text += '\\n  ' + r.code;
    if (r.error) text += '\\n  ' + r.error;
    if (r.result) text += '\\n  ' + r.result;
    if (r.notes && r.notes.length) text += '\\n  ' + r.notes.join('; ');
    return text;
  }

  function records(list) {
    const atEnd = feed.scrollTop + feed.clientHeight >= feed.scrollHeight - 4;
    for (const r of list) {
      const li = document.createElement('li');
      li.dataset.kind = r.kind;
      if (r.outcome) li.dataset.outcome = r.outcome;
      if (r.code) li.dataset.code = r.code;
      if (r.tool) li.dataset.tool = r.tool;
      li.dataset.seq = String(r.seq);
      li.textContent = describe(r);
      feed.append(li);
    }
    while (feed.children.length > 500) feed.firstElementChild.remove();
    if (atEnd) feed.scrollTop = feed.scrollHeight;
  }

  async function control(action) {
    $('problem').textContent = '';
    try {
      const res = await fetch('control', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action }) });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) throw new Error(body.error || ('HTTP ' + res.status));
      setState(body);
    } catch (e) {
      $('problem').textContent = action + ' failed: ' + e.message;
    }
  }
  for (const a of ['pause', 'resume', 'stop']) $(a).addEventListener('click', () => control(a));

  const es = new EventSource('events');
  es.addEventListener('hello', (e) => {
    const h = JSON.parse(e.data);
    $('conn').textContent = 'live';
    $('feed-head').textContent = h.journal ? 'journal ' + h.journal : 'the journal is off (journal.path, HYPRUSE_JOURNAL): no feed';
    feed.replaceChildren();
    outputs(h.outputs);
    agent(h.agent || []);
    records(h.records);
    for (const m of h.frames) frame(m);
    setState(h.state);
    if (h.problem) $('problem').textContent = h.problem;
  });
  es.addEventListener('state', (e) => setState(JSON.parse(e.data)));
  es.addEventListener('frame', (e) => frame(JSON.parse(e.data)));
  es.addEventListener('outputs', (e) => outputs(JSON.parse(e.data)));
  es.addEventListener('agent', (e) => agent(JSON.parse(e.data)));
  es.addEventListener('journal', (e) => records(JSON.parse(e.data)));
  es.addEventListener('problem', (e) => { $('problem').textContent = JSON.parse(e.data) || ''; });
  es.onerror = () => { $('conn').textContent = 'reconnecting…'; };
})();
`;
