/** The style sheet of the service pages (popup, landing page, admin pages, errors). */
export const STYLE = `
  body { font-family: system-ui, sans-serif; margin: 0; padding: 24px; color: #1d2330; background: #f6f7fb; }
  main { max-width: 420px; margin: 0 auto; background: #fff; border-radius: 12px; padding: 24px;
         box-shadow: 0 1px 3px rgba(0,0,0,.08); }
  h1 { font-size: 20px; margin: 0 0 16px; }
  h2 { font-size: 16px; margin: 24px 0 8px; }
  label { display: block; margin: 12px 0 4px; font-size: 14px; }
  input { width: 100%; box-sizing: border-box; padding: 10px; font-size: 16px; border: 1px solid #c8cdd8; border-radius: 8px; }
  button { margin-top: 16px; padding: 10px 16px; font-size: 16px; border-radius: 8px; border: 0; cursor: pointer; }
  button[data-action=submit], button[data-action=allow] { background: #2f5bea; color: #fff; }
  button[data-action=deny] { background: #e9ebf1; color: #1d2330; margin-left: 8px; }
  .muted { color: #667085; font-size: 14px; }
  .error { color: #b42318; }
  .promo { font-family: monospace; font-size: 18px; padding: 8px 12px; background: #eef2ff; border-radius: 6px; }
  main.wide { max-width: 1040px; }
  h1, .notice, .error { overflow-wrap: anywhere; } input[type=checkbox] { width: auto; }
  nav { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin-bottom: 16px; }
  nav form { margin-left: auto; } nav button { margin: 0; padding: 6px 12px; font-size: 14px; }
  nav a[aria-current=page] { color: inherit; font-weight: 600; text-decoration: none; }
  .actions { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-top: 12px; }
  .actions button { margin: 0; }
  .row-actions { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
  .row-actions input { width: 9em; }
  .table { overflow-x: auto; } table { border-collapse: collapse; width: 100%; font-size: 14px; }
  th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #e4e7ec; vertical-align: top; }
  td form { display: inline; } td button, td input { margin: 0; padding: 4px 8px; font-size: 13px; width: auto; }
  .notice { background: #ecfdf3; padding: 8px 12px; border-radius: 8px; }
  .secret { font-family: monospace; word-break: break-all; background: #fffaeb; padding: 8px 12px; border-radius: 8px; }
  tr.dead td { background: #fef3f2; } .badge { font-size: 12px; padding: 2px 6px; border-radius: 4px; background: #e9ebf1; }
  textarea { width: 100%; box-sizing: border-box; min-height: 72px; font: inherit; }
  .filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; } .filters label { margin: 0; }
  .filters input, .filters select { width: auto; }
`;
