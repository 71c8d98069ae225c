/**
 * The frame's styles (`body.console`), after the service pages' STYLE. Colours are chosen for WCAG AA contrast
 * on white (text ≥ 4.5:1, chart marks ≥ 3:1).
 */
export const FRAME_STYLE = `
  body.console { padding: 16px; }
  body.console header { max-width: 1040px; margin: 0 auto 12px; }
  body.console main.wide { max-width: 1040px; padding: 20px; }
  body.console nav a { color: #1d4ed8; }
  .skip { position: absolute; left: -9999px; top: 0; background: #fff; padding: 8px; }
  .skip:focus { left: 8px; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  .lang a[aria-current] { font-weight: 700; color: #1d2330; text-decoration: none; }
  .kpis { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 12px; margin: 16px 0; padding: 0; list-style: none; }
  .kpis li { background: #f6f7fb; border-radius: 10px; padding: 12px; }
  .kpis .label { display: block; font-size: 13px; color: #4a5468; }
  .kpis .value { display: block; font-size: 20px; font-weight: 600; margin-top: 4px; overflow-wrap: break-word; }
  .period { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: end; }
  .period label { margin: 0; } .period input { width: auto; padding: 6px 8px; font-size: 15px; }
  .period button { margin: 0; padding: 8px 14px; background: #1d4ed8; color: #fff; }
  .shortcuts { display: flex; gap: 12px; margin: 8px 0 0; padding: 0; list-style: none; }
  .shortcuts a[aria-current] { font-weight: 700; color: #1d2330; text-decoration: none; }
  .charts { display: grid; grid-template-columns: 1fr; gap: 16px; }
  @media (min-width: 900px) { .charts { grid-template-columns: 1fr 1fr; } }
  figure.chart { margin: 0; } figure.chart svg { width: 100%; height: auto; display: block; }
  figure.chart figcaption { font-weight: 600; margin-bottom: 8px; }
  .legend { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 6px 0 0; padding: 0; list-style: none; font-size: 14px; }
  .legend .swatch { display: inline-block; width: 14px; height: 4px; border-radius: 2px; vertical-align: middle; margin-right: 6px; }
  .s1 { background: #1d4ed8; } .s2 { background: #c2410c; } .s3 { background: #047857; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
  caption { text-align: left; font-weight: 600; padding: 4px 0; }
  details summary { cursor: pointer; margin: 12px 0; color: #1d4ed8; }
  .charts h2 { font-size: 16px; margin: 0 0 8px; }
  .funnel-steps { list-style: none; padding: 0; margin: 0; max-width: 640px; }
  .funnel-steps li { margin: 0 0 12px; }
  .funnel-steps svg { display: block; width: 100%; height: 18px; margin-top: 4px; }
  .pager { display: flex; gap: 12px; margin-top: 12px; }
  .csv { margin: 8px 0; }
  fieldset.tiers { min-width: 0; border: 1px solid #c8cdd8; border-radius: 8px; margin: 12px 0; }
  fieldset.tiers td input { width: 7em; } label.check { display: flex; gap: 8px; align-items: center; }
  .payout-actions form { margin: 0 0 12px; align-items: end; } .payout-actions label { margin: 0; }
  .payout-actions input { width: 16em; max-width: 100%; } .settle textarea { font-family: monospace; font-size: 13px; }
  .preview tfoot th, .preview tfoot td { font-weight: 600; } h2 code, td code.id { overflow-wrap: anywhere; word-break: break-all; }
  .settle button { background: #1d4ed8; color: #fff; } .filters button { margin: 0; padding: 8px 14px; }
  .search { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; }
  .search label { margin: 0; } .search input { width: 16em; padding: 6px 8px; font-size: 15px; }
  .search select { padding: 6px 8px; font-size: 15px; }
  .search button { margin: 0; padding: 8px 14px; background: #1d4ed8; color: #fff; }
  dl.profile { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }
  dl.profile dt { color: #4a5468; } dl.profile dd { margin: 0; overflow-wrap: anywhere; }
  .actions button { background: #1d4ed8; color: #fff; }
  .actions button.danger { background: #b42318; }
  ol.upline { padding-left: 20px; }
  .badge.on { background: #dcfae6; color: #05603a; } .badge.off { background: #fee4e2; color: #912018; }
  td.num { white-space: nowrap; }
  .search > a { align-self: center; }
  .row-form { display: flex; gap: 6px; align-items: center; margin: 0; }
  .row-form input { width: 11em; margin: 0; padding: 4px 6px; font-size: 14px; }
  .row-form button { margin: 0; padding: 5px 10px; background: #b42318; color: #fff; }
  .row-form button.plain { background: #1d4ed8; } .row-form select { padding: 4px 6px; font-size: 14px; }
  details.ban { margin-top: 12px; max-width: 640px; }
  details.ban summary { color: #b42318; font-weight: 600; }
  details.ban input { width: 100%; max-width: 24em; }
  .narrow { max-width: 560px; } .narrow select { width: 100%; box-sizing: border-box; padding: 10px; font-size: 16px; border: 1px solid #c8cdd8; border-radius: 8px; background: #fff; }
  .narrow textarea { padding: 10px; border: 1px solid #c8cdd8; border-radius: 8px; }
  section.application { border-top: 1px solid #e4e7ec; margin-top: 16px; }
  .answers { margin: 0; } .answers dt { font-weight: 600; } .answers dd { margin: 0 0 6px; overflow-wrap: anywhere; white-space: pre-wrap; }
  .phase-card { min-width: 0; border: 1px solid #c8cdd8; border-radius: 10px; margin: 12px 0; padding: 8px 14px 12px; background: #fbfcfe; }
  .phase-card legend { font-weight: 600; padding: 0 6px; }
  .phase-limit { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: end; margin-bottom: 8px; }
  .phase-limit label { margin: 0; display: flex; gap: 6px; align-items: center; } .phase-limit label[hidden] { display: none; } .phase-limit input { width: 6em; } .phase-limit select { padding: 8px; font-size: 15px; }
  .tier-head, .tier-row { display: grid; grid-template-columns: 9em repeat(4, minmax(0, 1fr)) 2.5em; gap: 6px 10px; align-items: center; }
  .tier-head { font-size: 13px; color: #4a5468; padding: 4px 0; border-bottom: 1px solid #e4e7ec; }
  .tier-rows { list-style: none; margin: 0; padding: 0; }
  .tier-row { padding: 6px 0; border-bottom: 1px solid #eef0f4; }
  .tier-row .cell { margin: 0; } .tier-row input { padding: 6px 8px; font-size: 15px; }
  .tier-row .cell-label { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  .tier-row .field-error { grid-column: 1 / -1; margin: 0; font-size: 14px; }
  .tier-name { font-weight: 600; font-size: 14px; } .referrer-note { grid-column: span 2; font-size: 13px; }
  button.plain { margin: 0; padding: 6px 10px; font-size: 14px; background: #eef2ff; color: #1d4ed8; }
  button.plain.danger { background: #fee4e2; color: #912018; } .phase-card > button.plain { margin-top: 8px; }
  .field-error { font-size: 14px; margin: 4px 0; } .add-phase { margin: 8px 0 16px; }
  .program-panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px; align-items: start; }
  .panel { border: 1px solid #e4e7ec; border-radius: 10px; padding: 4px 16px 12px; min-width: 0; }
  .preview-phase { margin: 8px 0 12px; } .preview-phase table { table-layout: fixed; } .preview-phase th[scope=col]:first-child { width: 38%; } .preview-phase caption { font-size: 14px; } .preview .qualify { display: block; font-size: 12px; color: #4a5468; }
  .actions button.secondary { background: #e9ebf1; color: #1d2330; } .promotion select { padding: 8px; font-size: 15px; }
  @media (max-width: 600px) {
    body.console { padding: 8px; } body.console main.wide { padding: 14px; }
    .kpis { grid-template-columns: 1fr 1fr; } .kpis .value { font-size: 17px; }
    .tier-head { display: none; } .tier-row { grid-template-columns: 1fr 1fr; }
    .tier-name { grid-column: 1; grid-row: 1; } .tier-row .remove { grid-column: 2; grid-row: 1; justify-self: end; } .tier-row .cell-label { position: static; width: auto; height: auto; clip: auto; display: block; font-size: 12px; color: #4a5468; }
    .program-panels { grid-template-columns: 1fr; } .preview-phase table { table-layout: auto; } .panel, .phase-card { padding-left: 10px; padding-right: 10px; }
  }
`;
