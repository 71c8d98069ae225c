/**
 * The program page's enhancement: the cascade preview follows the form as it is typed in. The
 * same rules as src/console/program/program.form.ts (amounts with at most 2 decimals, percents to
 * basis points) and the dry run's arithmetic (src/conversions/cascade.ts: `floor(amount × bp /
 * 10000)` in exact integers, or the fixed sum); the page works the same without it, after the
 * Preview button.
 */
export const PROGRAM_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('program-preview-data').textContent);
  var money = new Intl.NumberFormat(data.locale, { style: 'currency', currency: data.currency,
    minimumFractionDigits: 2, maximumFractionDigits: 2 });
  var pct = new Intl.NumberFormat(data.locale, { maximumFractionDigits: 2 });
  function fmt(k) { return money.format(k / 100); }
  function parse(text, whole, max) {
    var m = new RegExp('^(\\\\d{1,' + whole + '})(?:[.,](\\\\d{1,2}))?$')
      .exec(String(text).replace(/[\\s\\u00a0]/g, ''));
    if (!m) return undefined;
    var v = Number(m[1]) * 100 + Number((m[2] || '').padEnd(2, '0'));
    return v <= max ? v : undefined;
  }
  function val(el) { return el ? el.value.trim() : ''; }
  function update() {
    var amount = parse(val(document.getElementById('amount')) || '10000', 13, 1e13);
    var rows = document.querySelectorAll('[data-preview-row]');
    var ok = !!amount, ended = false, total = 0, sumBp = 0, out = [];
    for (var i = 0; i < rows.length; i++) {
      var p = val(document.querySelector('[data-tier-percent="' + i + '"]'));
      var f = val(document.querySelector('[data-tier-fixed="' + i + '"]'));
      if (!p && !f) { ended = true; out.push(null); continue; }
      if (ended || (p && f)) { ok = false; break; }
      var bp = p ? parse(p, 3, 10000) : undefined;
      var fixed = f ? parse(f, 13, 1e13) : undefined;
      if (p ? bp === undefined : fixed === undefined) { ok = false; break; }
      var earns = p ? Number((BigInt(amount) * BigInt(bp)) / 10000n) : fixed;
      if (p) sumBp += bp;
      total += earns;
      out.push({ rule: p ? pct.format(bp / 100) + ' %' : fmt(fixed), earns: earns });
    }
    if (sumBp > 10000 || !out.length || !out[0]) ok = false;
    document.querySelector('[data-preview-state]').hidden = ok;
    document.querySelector('[data-preview-table]').hidden = !ok;
    if (!ok) return;
    for (var j = 0; j < rows.length; j++) {
      var r = out[j];
      rows[j].hidden = !r;
      if (!r) continue;
      rows[j].querySelector('[data-preview-rule]').textContent = r.rule;
      var cell = rows[j].querySelector('[data-preview-amount]');
      cell.textContent = fmt(r.earns);
      cell.setAttribute('data-value', String(r.earns));
    }
    var t = document.querySelector('[data-preview-total]');
    t.textContent = fmt(total);
    t.setAttribute('data-value', String(total));
    var rest = document.querySelector('[data-preview-remains]');
    rest.textContent = fmt(amount - total);
    rest.setAttribute('data-value', String(amount - total));
    document.querySelector('[data-preview-caption]').textContent =
      data.title.replace('{amount}', fmt(amount));
  }
  document.addEventListener('input', update);
})();
`;
