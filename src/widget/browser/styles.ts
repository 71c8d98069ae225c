import { script } from './env';

/**
 * The widgets' styles: one constructed sheet shared by every shadow root (a `<style>` with the
 * script tag's nonce where constructed sheets are missing). Host pages theme the widgets through
 * the `--sw-*` custom properties.
 */
const CSS = `
:host{all:initial;display:block}
:host([hidden]){display:none}
*,*::before,*::after{box-sizing:border-box}
.w{all:initial;display:block;--a:var(--sw-accent,#2f5bea);--m:var(--sw-muted,#667085);--b:var(--sw-border,#e4e7ec);--s:var(--sw-surface,#f6f7fb);--r:var(--sw-radius,12px);
font-family:var(--sw-font,system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif);font-size:var(--sw-font-size,14px);line-height:1.45;
color:var(--sw-text,#1d2330);background:var(--sw-bg,#fff);border:1px solid var(--b);border-radius:var(--r);padding:var(--sw-padding,16px);text-align:start}
.w[aria-busy=true]>:not(.head){opacity:.55;transition:opacity .2s}
h2{font-size:1.15em;font-weight:600;margin:0 0 12px}
h3{font-size:.95em;font-weight:600;margin:16px 0 4px;color:var(--m)}
p{margin:8px 0}
.muted,small{color:var(--m)}
.kpis{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,11.5em),1fr));gap:8px}
.kpi{background:var(--s);border-radius:calc(var(--r) - 4px);padding:10px 12px}
.kpi b{display:block;font-size:1.3em;font-variant-numeric:tabular-nums;white-space:nowrap}
.kpi span{color:var(--m);font-size:.85em}
.money{margin-top:8px}
.kpi.main{box-shadow:inset 3px 0 0 var(--a)}
.kpi.neg b{color:var(--sw-danger,#b42318)}
.next{display:flex;flex-wrap:wrap;justify-content:space-between;gap:2px 16px;margin:8px 0 0;padding:8px 12px;border:1px solid var(--b);border-radius:calc(var(--r) - 4px);font-size:.9em}
.next b{font-weight:600;font-variant-numeric:tabular-nums;white-space:nowrap}
.next [data-metric=minimum]{white-space:nowrap}
.sums{display:flex;flex-wrap:wrap;justify-content:flex-end;gap:4px 16px;text-align:end}
ul{list-style:none;margin:0;padding:0}
.rows>li{display:flex;justify-content:space-between;align-items:center;gap:12px;padding:8px 0;border-bottom:1px solid var(--b)}
.rows>li:last-child{border-bottom:0}
.rows small{display:block;font-size:.85em}
.amt{font-variant-numeric:tabular-nums;font-weight:600;white-space:nowrap}
.end{display:flex;align-items:center;gap:8px;flex-shrink:0}
.chip{display:inline-block;font-size:.8em;padding:2px 8px;border-radius:999px;white-space:nowrap;--c:var(--m)}
.new{color:var(--a)}.processed,.pending{color:var(--sw-warning,#b54708)}.converted,.approved,.paid{color:var(--sw-success,#067647)}
.rejected,.reversed,.err{color:var(--sw-danger,#b42318)}
.chip.new{--c:var(--a)}.chip.processed,.chip.pending{--c:var(--sw-warning,#b54708)}.chip.converted,.chip.approved,.chip.paid{--c:var(--sw-success,#067647)}.chip.rejected,.chip.reversed{--c:var(--sw-danger,#b42318)}
.chip[class]{color:color-mix(in srgb,var(--c) 62%,#000);background:color-mix(in srgb,var(--c) 10%,var(--sw-bg,#fff))}
.btn{font:inherit;cursor:pointer;border:1px solid var(--b);background:var(--sw-bg,#fff);color:inherit;border-radius:8px;padding:6px 12px;margin:0}
.btn.primary{background:var(--a);color:var(--sw-accent-text,#fff);border-color:transparent;padding:8px 16px}
.btn:disabled{opacity:.5;cursor:default}
:focus-visible{outline:2px solid var(--a);outline-offset:2px}
.pager{display:flex;align-items:center;justify-content:space-between;gap:8px;margin-top:12px}
.bar{display:flex;flex-wrap:wrap;align-items:center;gap:8px;margin-bottom:8px}
input,select,textarea{font:inherit;color:inherit;background:var(--sw-bg,#fff);border:1px solid var(--b);border-radius:8px;padding:6px 10px;margin:0}
label{display:block;margin:10px 0 4px;font-size:.9em}
form input,form select,form textarea{width:100%;box-sizing:border-box}
form .btn{margin-top:14px}
.link{display:flex;gap:8px;margin:8px 0}
.link input{flex:1;min-width:0;font-family:ui-monospace,Menlo,Consolas,monospace}
.note{background:var(--s);border-radius:8px;padding:8px 12px;font-size:.9em}
.tree ul{padding-inline-start:14px;margin-inline-start:10px;border-inline-start:1px dashed var(--b)}
.node{display:flex;align-items:center;gap:4px;padding:2px 0}
.tog{width:22px;height:22px;flex-shrink:0;padding:0;border:0;background:none;color:var(--m);cursor:pointer;font:inherit}
.off{background:var(--s)}.off [data-field=name]{color:var(--m)}
`;

let sheet: CSSStyleSheet | null = null;

export function style(root: ShadowRoot): void {
  try {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
    }
    root.adoptedStyleSheets = [sheet];
  } catch {
    const el = document.createElement('style');
    if (script?.nonce) el.nonce = script.nonce;
    el.textContent = CSS;
    root.append(el);
  }
}
