// report.html: everything below builds nodes with textContent only; the data is untrusted.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('data').textContent);
  var STATUSES = ['passed', 'failed', 'xpass', 'xfail', 'unsupported', 'unavailable', 'skipped'];

  function el(tag, attrs) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (k === 'class') e.className = v;
      else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), v);
      else if (k === 'hidden') e.hidden = !!v;
      else e.setAttribute(k, v);
    });
    for (var i = 2; i < arguments.length; i++) {
      var kid = arguments[i];
      if (kid === null || kid === undefined) continue;
      if (Array.isArray(kid)) kid.forEach(function (k) { if (k) e.append(k); });
      else e.append(kid); // strings become text nodes
    }
    return e;
  }

  // Columns: the SDKs of the run, then any SDK named only by a result.
  var sdkInfo = {};
  var columns = [];
  (D.sdks || []).forEach(function (s) { sdkInfo[s.name] = s; columns.push(s.name); });
  var results = D.results || [];
  results.forEach(function (r) { if (columns.indexOf(r.sdk) < 0) columns.push(r.sdk); });
  function sdkLabel(name) {
    var s = sdkInfo[name];
    return s && s.version ? name + ' ' + s.version : name;
  }

  // Rows: scenarios in the order first seen, grouped by feature.
  var features = [], rows = {}, cell = {};
  results.forEach(function (r, i) {
    if (!rows[r.feature]) { rows[r.feature] = []; features.push(r.feature); }
    if (rows[r.feature].indexOf(r.scenario) < 0) rows[r.feature].push(r.scenario);
    cell[r.feature + '\u0000' + r.scenario + '\u0000' + r.sdk] = i;
  });
  var present = STATUSES.filter(function (s) { return results.some(function (r) { return r.status === s; }); });

  var filter = { status: {}, feature: '', sdk: {} };
  present.forEach(function (s) { filter.status[s] = true; });
  columns.forEach(function (c) { filter.sdk[c] = true; });

  // Header.
  var h = D.harness || {};
  document.getElementById('meta').textContent = [h.version && 'harness ' + h.version, h.startedAt, h.command, h.schema && 'schema: ' + h.schema]
    .filter(Boolean).join(' · ');

  // Filters.
  var filters = document.getElementById('filters');
  filters.append(el('strong', {}, 'Status'));
  present.forEach(function (s) {
    filters.append(el('label', {}, el('input', { type: 'checkbox', checked: '', 'data-filter-status': s, onchange: function (e) { filter.status[s] = e.target.checked; draw(); } }), ' ' + s));
  });
  var fsel = el('select', { id: 'feature-filter', onchange: function (e) { filter.feature = e.target.value; draw(); } }, el('option', { value: '' }, 'every feature'));
  features.forEach(function (f) { fsel.append(el('option', { value: f }, f)); });
  filters.append(el('strong', {}, 'Feature'), fsel, el('strong', {}, 'SDK'));
  columns.forEach(function (c) {
    filters.append(el('label', {}, el('input', { type: 'checkbox', checked: '', 'data-filter-sdk': c, onchange: function (e) { filter.sdk[c] = e.target.checked; draw(); } }), ' ' + c));
  });

  function draw() {
    var cols = columns.filter(function (c) { return filter.sdk[c]; });
    var table = document.getElementById('matrix');
    table.replaceChildren();
    table.append(el('thead', {}, el('tr', {}, el('th', {}, 'Scenario'), cols.map(function (c) {
      var s = sdkInfo[c];
      return el('th', { title: s && s.status !== 'available' ? (s.reason || s.status) : (s && s.source) || '' }, sdkLabel(c));
    }))));
    var body = el('tbody', {});
    var totals = {};
    features.forEach(function (f) {
      if (filter.feature && filter.feature !== f) return;
      var trs = [];
      rows[f].forEach(function (sc) {
        var cells = [], shown = false;
        cols.forEach(function (c) {
          var i = cell[f + '\u0000' + sc + '\u0000' + c];
          if (i === undefined) { cells.push(el('td', {})); return; }
          var r = results[i];
          if (filter.status[r.status]) shown = true;
          cells.push(el('td', { class: 'cell s-' + r.status, 'data-status': r.status, 'data-index': String(i), title: r.message || r.status,
            onclick: function (e) { open(i, e.currentTarget); } }, r.status));
        });
        if (!shown) return;
        cells.forEach(function (td) {
          var st = td.getAttribute('data-status');
          if (st && filter.status[st]) totals[st] = (totals[st] || 0) + 1;
        });
        trs.push(el('tr', {}, el('td', { class: 'scenario' }, sc), cells));
      });
      if (trs.length) body.append.apply(body, [el('tr', { class: 'feature' }, el('td', { colspan: String(cols.length + 1) }, f))].concat(trs));
    });
    table.append(body);
    var t = document.getElementById('totals');
    t.replaceChildren(el('strong', {}, 'Shown'));
    present.forEach(function (s) {
      if (totals[s]) t.append(el('span', { class: 's-' + s, 'data-total': s }, totals[s] + ' ' + s));
    });
  }

  // Transcripts live in TranscriptDir/<n>.js beside the page (see html.go): load(n, done) adds
  // that script once and calls done(entries), or done(null, why) when it cannot be read.
  var transcripts = {}, waiting = {};
  window.__conformanceTranscript = function (n, entries) {
    transcripts[n] = entries;
    (waiting[n] || []).forEach(function (f) { f(entries); });
    delete waiting[n];
  };
  function load(n, done) {
    if (transcripts[n]) { done(transcripts[n]); return; }
    if (waiting[n]) { waiting[n].push(done); return; }
    waiting[n] = [done];
    var s = document.createElement('script');
    s.src = D.transcriptDir + '/' + n + '.js';
    s.onerror = function () {
      var fs = waiting[n] || [];
      delete waiting[n];
      s.remove();
      fs.forEach(function (f) { f(null, 'transcript not found: ' + s.src); });
    };
    document.head.append(s);
  }

  // Requests the SDK sent in a transcript, each under the key the cross-SDK comparison pairs it
  // by (keys: the result's requestKeys, by entry seq: its case, then what it carries; see
  // html.go), so two SDKs' requests sent in different orders are still set side by side.
  // A request without a key (a page of an older run) is numbered per method.
  function requests(entries, keys) {
    var out = [], seen = {};
    (entries || []).forEach(function (e) {
      var f = e.frame;
      if (e.dir !== 'sdk->runtime' || !f || typeof f.method !== 'string' || f.id === undefined) return;
      seen[f.method] = (seen[f.method] || 0) + 1;
      var key = keys && keys[e.seq];
      out.push({ key: key || f.method + '#' + seen[f.method], params: f.params });
    });
    return out;
  }

  // flatten maps a JSON value to JSON-pointer paths and the JSON of each leaf.
  function flatten(v, path, out) {
    if (v !== null && typeof v === 'object' && Object.keys(v).length) {
      Object.keys(v).forEach(function (k) {
        flatten(v[k], path + '/' + String(k).replace(/~/g, '~0').replace(/\//g, '~1'), out);
      });
    } else {
      out.push([path || '/', JSON.stringify(v)]);
    }
    return out;
  }

  function diffTable(a, b, nameA, nameB) {
    var fa = flatten(a, '', []), fb = flatten(b, '', []);
    var order = [], va = {}, vb = {};
    fa.forEach(function (p) { va[p[0]] = p[1]; order.push(p[0]); });
    fb.forEach(function (p) { vb[p[0]] = p[1]; if (!(p[0] in va)) order.push(p[0]); });
    var differing = order.filter(function (p) { return va[p] !== vb[p]; });
    return el('div', { class: 'diff' },
      el('p', { class: 'diff-count' }, differing.length ? differing.length + ' differing path(s): ' + differing.join(', ') : 'identical'),
      el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'path'), el('th', {}, nameA), el('th', {}, nameB))),
        el('tbody', {}, order.map(function (p) {
          return el('tr', { class: va[p] !== vb[p] ? 'differs' : '', 'data-path': p },
            el('td', { class: 'path' }, p),
            el('td', {}, el('pre', {}, p in va ? va[p] : '(absent)')),
            el('td', {}, el('pre', {}, p in vb ? vb[p] : '(absent)')));
        }))));
  }

  // One line of the conversation: when, which connection, which way, what.
  function describe(e, methods) {
    var f = e.frame;
    if (e.dir === 'note') return e.text || '';
    if (e.error) return 'unreadable: ' + e.error;
    if (!f || typeof f !== 'object') return '';
    if (e.dir === 'harness->driver') return 'command ' + f.cmd;
    if (e.dir === 'driver->harness') {
      if (f.event) return 'event ' + f.event + (f.args && f.args.type ? ' ' + f.args.type : '');
      return 'result ' + (f.outcome || '') + (f.error && f.error.message ? ': ' + f.error.message : '');
    }
    var key = e.conn + ' ' + JSON.stringify(f.id);
    if (f.method) {
      if (f.id !== undefined) methods[key] = f.method;
      var type = f.params && f.params.event && f.params.event.type;
      return (f.id !== undefined ? 'request ' : 'notification ') + f.method + (type ? ' ' + type : '');
    }
    var m = methods[key] || '';
    return (f.error ? 'error for ' : 'response to ') + m + (f.error && f.error.message ? ': ' + f.error.message : '');
  }

  function conversation(entries) {
    var methods = {};
    return el('div', { class: 'conversation' }, entries.map(function (e) {
      var what = describe(e, methods);
      if (e.header_t_ms !== undefined) what += ' (header and body apart: body +' + (e.t_ms - e.header_t_ms).toFixed(2) + ' ms)';
      var body = e.frame !== undefined || e.raw
        ? el('details', {}, el('summary', {}, what), el('pre', {}, e.frame !== undefined ? JSON.stringify(e.frame, null, 2) : e.raw))
        : el('span', { class: e.error ? 'bad' : '' }, what);
      return el('div', { class: 'entry d-' + e.dir.replace(/[^a-z]+/g, '-'), 'data-seq': String(e.seq) },
        el('span', { class: 't' }, (e.t_ms || 0).toFixed(1) + ' ms'),
        el('span', { class: 'conn' }, e.conn || ''),
        el('span', { class: 'dir' }, e.dir),
        body);
    }));
  }

  var opened = 0; // the latest open(); a transcript arriving for an earlier one is dropped
  function open(i, td) {
    var ticket = ++opened;
    document.querySelectorAll('td.cell.selected').forEach(function (x) { x.classList.remove('selected'); });
    if (td) td.classList.add('selected');
    var r = results[i];
    var aside = document.getElementById('detail');
    aside.replaceChildren();
    aside.hidden = false;
    aside.append(el('button', { class: 'close', onclick: function () { aside.hidden = true; } }, 'close'),
      el('h2', {}, r.scenario),
      el('p', {}, r.feature + ' · ' + sdkLabel(r.sdk) + ' · ', el('span', { class: 's-' + r.status }, r.status)));
    if (r.message) aside.append(el('pre', { class: 'msg' }, r.message));
    if (r.rerun) aside.append(el('p', {}, 'rerun: ', el('code', {}, r.rerun)));
    if (r.expected) aside.append(el('p', {}, 'expected by ', el('code', {}, r.expected)));
    (r.schemaViolations || []).forEach(function (v) { aside.append(el('p', { class: 'bad' }, 'schema: ' + v)); });
    Object.keys(r.observations || {}).forEach(function (k) { aside.append(el('p', {}, k + ': ' + r.observations[k])); });
    if (r.transcriptError) aside.append(el('p', { class: 'bad' }, r.transcriptError));
    if (r.transcriptIndex < 0) { aside.append(el('p', {}, 'no transcript')); return; }
    var loading = el('p', { class: 'loading' }, 'loading transcript…');
    aside.append(loading);
    load(r.transcriptIndex, function (entries, why) {
      if (ticket !== opened) return;
      loading.remove();
      if (!entries) { aside.append(el('p', { class: 'bad' }, why)); return; }
      showTranscript(r, entries, aside);
    });
  }

  function showTranscript(r, entries, aside) {
    // The same scenario on the other SDKs that have a transcript.
    var others = columns.filter(function (c) {
      var j = cell[r.feature + '\u0000' + r.scenario + '\u0000' + c];
      return c !== r.sdk && j !== undefined && results[j].transcriptIndex >= 0;
    });
    var mine = requests(entries, r.requestKeys);
    if (others.length && mine.length) {
      var reqSel = el('select', { id: 'diff-request' }, mine.map(function (q) { return el('option', { value: q.key }, q.key); }));
      var sdkSel = el('select', { id: 'diff-sdk' }, others.map(function (c) { return el('option', { value: c }, sdkLabel(c)); }));
      var out = el('div', { id: 'diff' });
      var redraw = function () {
        var sdk = sdkSel.value, key = reqSel.value;
        var j = cell[r.feature + '\u0000' + r.scenario + '\u0000' + sdk];
        load(results[j].transcriptIndex, function (other, why) {
          if (sdk !== sdkSel.value || key !== reqSel.value) return; // changed meanwhile
          if (!other) { out.replaceChildren(el('p', { class: 'bad' }, why)); return; }
          var a = mine.filter(function (q) { return q.key === key; })[0];
          var b = requests(other, results[j].requestKeys).filter(function (q) { return q.key === key; })[0];
          out.replaceChildren(b ? diffTable(a.params, b.params, r.sdk, sdk)
            : el('p', {}, sdk + ' sent no ' + key));
        });
      };
      reqSel.addEventListener('change', redraw);
      sdkSel.addEventListener('change', redraw);
      aside.append(el('h3', {}, 'Request compared with another SDK'), el('p', {}, reqSel, ' against ', sdkSel), out);
      redraw();
    }
    aside.append(el('h3', {}, 'Transcript (' + entries.length + ' entries)'), conversation(entries));
  }

  document.addEventListener('keydown', function (e) { if (e.key === 'Escape') document.getElementById('detail').hidden = true; });
  draw();
})();
