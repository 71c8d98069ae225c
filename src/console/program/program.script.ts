/**
 * The program page's enhancement (the page works the same without it, after its buttons):
 * - the cascade preview follows the form as it is typed in, phase by phase: the same rules as
 *   program.form.ts (amounts with at most 2 decimals, percents to basis points, tiers end at the
 *   first empty row) and the dry run's arithmetic (src/conversions/cascade.ts: `floor(amount × bp
 *   / 10000)` in exact integers, or the fixed sum); anything the server would refuse shows the
 *   "fix the form" line. The preview is built with textContent only.
 * - the add/remove buttons post the form with their intent in the background and put the form
 *   and preview of the answer in place of these (the server renders them: one set of rules).
 */
export const PROGRAM_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('program-preview-data').textContent);
  var money = new Intl.NumberFormat(data.locale, { style: 'currency', currency: data.currency,
    minimumFractionDigits: 2, maximumFractionDigits: 2 });
  var pct = new Intl.NumberFormat(data.locale, { maximumFractionDigits: 2 });
  var plural = new Intl.PluralRules(data.lang);
  function fmt(k) { return money.format(k / 100); }
  function parse(text, whole, max) {
    var m = new RegExp('^(\\\\d{1,' + whole + '})(?:[.,](\\\\d{1,2}))?$')
      .exec(String(text).replace(/[\\s\\u00a0]/g, ''));
    if (!m) return undefined;
    var v = Number(m[1]) * 100 + Number((m[2] || '').padEnd(2, '0'));
    return v <= max ? v : undefined;
  }
  function val(root, sel) { var el = root.querySelector(sel); return el ? el.value.trim() : ''; }
  function el(tag, text, attrs) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }
  function title(n, limit, count) {
    var set = n === 1 ? data.titles.first : data.titles.next;
    if (!limit || count === undefined) return set.ever.replace('{n}', n);
    var units = data.titles.units[limit];
    var unit = units[plural.select(count)] || units.other || '';
    return set[limit].replace('{n}', n).replace('{count}', count).replace('{unit}', unit);
  }
  function phaseOf(card, amount) {
    var rows = card.querySelectorAll('[data-tier-row]');
    var ended = false, sumBp = 0, tiers = [];
    for (var i = 0; i < rows.length; i++) {
      var p = val(rows[i], '[data-tier-percent]'), f = val(rows[i], '[data-tier-fixed]');
      var qm = val(rows[i], '[data-tier-qmin]'), qd = val(rows[i], '[data-tier-qdays]');
      if (!p && !f) { if (qm || qd) return null; ended = true; continue; }
      if (ended || (p && f)) return null;
      var bp = p ? parse(p, 3, 10000) : undefined;
      var fixed = f ? parse(f, 13, 1e13) : undefined;
      if (p ? bp === undefined : fixed === undefined) return null;
      var q = null;
      if (qm || qd) {
        var min = parse(qm, 13, 1e13), days = /^\\d{1,4}$/.test(qd) ? Number(qd) : 0;
        if (!min || days < 1 || days > 3650) return null;
        q = data.needsQualify.replace('{amount}', fmt(min)).replace('{days}', days);
      }
      if (p) sumBp += bp;
      tiers.push({ name: rows[i].querySelector('.tier-name').textContent,
        rule: p ? pct.format(bp / 100) + ' %' : fmt(fixed), qualify: q,
        earns: p ? Number((BigInt(amount) * BigInt(bp)) / 10000n) : fixed });
    }
    if (!tiers.length || sumBp > 10000) return null;
    var limit = val(card, '[data-phase-limit]'), countText = val(card, '[data-phase-count]');
    var count = /^\\d{1,6}$/.test(countText) ? Number(countText) : undefined;
    if (limit && (count === undefined || count < 1 || count > 100000)) return null;
    return { tiers: tiers, limit: limit, count: count };
  }
  function table(phase, n, phased, amount) {
    var wrap = el('div', undefined, { 'class': 'table preview-phase', 'data-preview-phase': n - 1 });
    var t = el('table');
    if (phased) t.appendChild(el('caption', title(n, phase.limit, phase.count),
      { 'data-preview-phase-title': '' }));
    var head = el('thead'), hr = el('tr');
    hr.appendChild(el('th', data.labels.tier, { scope: 'col' }));
    hr.appendChild(el('th', data.labels.rule, { scope: 'col' }));
    hr.appendChild(el('th', data.labels.earns, { scope: 'col', 'class': 'num' }));
    head.appendChild(hr); t.appendChild(head);
    var body = el('tbody'), total = 0;
    phase.tiers.forEach(function (tier, i) {
      var tr = el('tr', undefined, { 'data-preview-row': i });
      tr.appendChild(el('th', tier.name, { scope: 'row' }));
      var rule = el('td', tier.rule, { 'data-preview-rule': '' });
      if (tier.qualify) rule.appendChild(el('span', tier.qualify,
        { 'class': 'qualify', 'data-preview-qualify': '' }));
      tr.appendChild(rule);
      tr.appendChild(el('td', fmt(tier.earns),
        { 'class': 'num', 'data-preview-amount': '', 'data-value': tier.earns }));
      body.appendChild(tr); total += tier.earns;
    });
    t.appendChild(body);
    var foot = el('tfoot');
    [[data.labels.total, total, 'data-preview-total'],
     [data.labels.remains, amount - total, 'data-preview-remains']].forEach(function (r) {
      var tr = el('tr');
      tr.appendChild(el('th', r[0], { scope: 'row', colspan: '2' }));
      var attrs = { 'class': 'num', 'data-value': r[1] }; attrs[r[2]] = '';
      tr.appendChild(el('td', fmt(r[1]), attrs));
      foot.appendChild(tr);
    });
    t.appendChild(foot); wrap.appendChild(t);
    return wrap;
  }
  function update() {
    var form = document.querySelector('[data-phases]');
    if (!form) return;
    var amount = parse(document.getElementById('amount').value.trim() || '10000', 13, 1e13);
    var cards = document.querySelectorAll('[data-phase]');
    var phased = !!document.querySelector('[data-phase-limit]');
    var phases = [], ok = !!amount;
    for (var c = 0; c < cards.length; c++) {
      var limitSelect = cards[c].querySelector('[data-phase-limit]');
      var countLabel = cards[c].querySelector('[data-count-label]');
      if (limitSelect && countLabel) countLabel.hidden = !limitSelect.value;
    }
    for (var i = 0; ok && i < cards.length; i++) {
      var ph = phaseOf(cards[i], amount);
      if (!ph) ok = false; else phases.push(ph);
      var legend = cards[i].querySelector('[data-phase-title]');
      if (ph && phased) legend.textContent = title(i + 1, ph.limit, ph.count);
    }
    for (var j = 0; ok && j < phases.length - 1; j++) if (!phases[j].limit) ok = false;
    document.querySelector('[data-preview-state]').hidden = ok;
    document.querySelector('[data-preview-table]').hidden = !ok;
    if (!ok) return;
    var box = document.querySelector('[data-preview-phases]');
    while (box.firstChild) box.removeChild(box.firstChild);
    phases.forEach(function (ph, n) { box.appendChild(table(ph, n + 1, phased, amount)); });
    var compression = document.getElementById('compression');
    document.querySelector('[data-preview-compression]').textContent =
      compression && compression.checked ? data.compressionOn : data.compressionOff;
    document.querySelector('[data-preview-caption]').textContent =
      data.title.replace('{amount}', fmt(amount));
  }
  function swap(html, intent) {
    var doc = new DOMParser().parseFromString(html, 'text/html');
    ['program-form', 'program-panels'].forEach(function (id) {
      var now = document.getElementById(id), next = doc.getElementById(id);
      if (now && next) now.replaceWith(document.importNode(next, true));
    });
    var m = /^(add|remove)_(tier|phase)_?(\\d*)/.exec(intent) || [];
    var card = document.querySelectorAll('[data-phase]');
    var place = m[2] === 'phase' ? card[card.length - 1] : card[Number(m[3] || 0)];
    var focus = place && (m[1] === 'add'
      ? place.querySelectorAll('[data-tier-percent]') : place.querySelectorAll('[data-intent]'));
    if (focus && focus.length) focus[focus.length - 1].focus();
    update();
  }
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button[data-intent]');
    if (!button || !button.form) return;
    event.preventDefault();
    var body = new URLSearchParams(new FormData(button.form));
    body.set('intent', button.value);
    fetch(button.form.action, { method: 'POST', body: body, credentials: 'same-origin' })
      .then(function (res) { if (!res.ok) throw new Error(String(res.status)); return res.text(); })
      .then(function (html) { swap(html, button.value); })
      .catch(function () {
        var input = el('input', undefined, { type: 'hidden', name: 'intent', value: button.value });
        button.form.appendChild(input);
        button.form.submit();
      });
  });
  document.addEventListener('input', update);
  document.addEventListener('change', update);
  update();
})();
`;
