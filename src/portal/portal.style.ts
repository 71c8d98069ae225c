/**
 * The partner portal's look on the frame (`body.portal`, after STYLE and FRAME_STYLE): a light
 * partner dashboard (white top bar, tabs, cards, large figures) rather than the console's tool
 * look. Colours keep WCAG AA contrast on white and on the page's grey.
 */
export const PORTAL_STYLE = `
  body.portal { background: #f6f7f9; padding: 0; color: #111827;
    font-family: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  body.portal header { max-width: none; margin: 0; background: #fff; border-bottom: 1px solid #e5e7eb; }
  body.portal header nav { max-width: 1040px; margin: 0 auto; padding: 10px 20px; gap: 4px 6px; }
  body.portal header nav strong { font-size: 17px; margin-right: 14px; overflow-wrap: anywhere; }
  body.portal header nav a { color: #374151; text-decoration: none; padding: 7px 11px; border-radius: 8px; font-size: 15px; }
  body.portal header nav a:hover { background: #f3f4f6; }
  body.portal header nav a[aria-current=page] { background: #eef2ff; color: #3730a3; font-weight: 600; }
  body.portal header .lang { margin-left: auto; } body.portal header .lang a { padding: 4px 6px; font-size: 13px; }
  body.portal header .muted { font-size: 13px; color: #4b5563; overflow-wrap: anywhere; }
  body.portal header nav form { margin-left: 0; }
  body.portal header nav button { background: #fff; color: #374151; border: 1px solid #d1d5db; }
  body.portal main.wide { max-width: 1040px; margin: 24px auto; padding: 0 20px; background: transparent; box-shadow: none; }
  body.portal main.wide > h1 { font-size: 26px; letter-spacing: -0.01em; margin: 0 0 6px; }
  body.portal .lead { color: #4b5563; margin: 0 0 20px; }
  body.portal .card { background: #fff; border: 1px solid #e5e7eb; border-radius: 14px; padding: 20px; margin: 0 0 16px;
    box-shadow: 0 1px 2px rgba(16,24,40,.04); min-width: 0; }
  body.portal .card > h2:first-child { margin-top: 0; }
  body.portal h2 { font-size: 17px; }
  body.portal .metrics { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 16px; margin: 0 0 16px; padding: 0; list-style: none; }
  body.portal .metrics li { background: #fff; border: 1px solid #e5e7eb; border-radius: 14px; padding: 18px 20px; }
  body.portal .metrics .label { display: block; color: #4b5563; font-size: 14px; font-weight: 500; }
  body.portal .metrics .value { display: block; font-size: 28px; font-weight: 700; margin: 6px 0 2px; letter-spacing: -0.02em;
    font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
  body.portal .metrics .hint { display: block; color: #6b7280; font-size: 13px; }
  body.portal .metrics li.primary { background: #312e81; border-color: #312e81; color: #fff; }
  body.portal .metrics li.primary .label, body.portal .metrics li.primary .hint { color: #e0e7ff; }
  body.portal .counts { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 0 0 12px; padding: 0; list-style: none; }
  body.portal .counts strong { display: block; font-size: 22px; font-variant-numeric: tabular-nums; }
  body.portal .counts span { color: #4b5563; font-size: 14px; }
  body.portal .pill { display: inline-block; font-size: 13px; padding: 2px 9px; border-radius: 999px; background: #f3f4f6; color: #374151; }
  body.portal .pill.pending { background: #fef3c7; color: #92400e; } body.portal .pill.approved { background: #dbeafe; color: #1e40af; }
  body.portal .pill.paid { background: #dcfce7; color: #166534; } body.portal .pill.rejected, body.portal .pill.reversed,
  body.portal .pill.failed, body.portal .pill.canceled { background: #fee2e2; color: #991b1b; }
  body.portal button[data-action=submit], body.portal .card button[type=submit] { background: #4338ca; color: #fff; }
  body.portal input, body.portal select { border-color: #d1d5db; }
  body.portal form.inline-form { display: grid; grid-template-columns: 1fr; gap: 0 12px; max-width: 640px; }
  body.portal .link-row { display: grid; grid-template-columns: minmax(0, 1fr) 132px; gap: 16px; align-items: start;
    border-top: 1px solid #f0f1f3; padding: 16px 0; }
  body.portal .link-row:first-of-type { border-top: 0; }
  body.portal .link-row input[readonly] { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 15px; background: #f9fafb; }
  body.portal .link-row .meta { color: #4b5563; font-size: 14px; margin: 6px 0 0; overflow-wrap: anywhere; }
  body.portal .link-row .clicks { font-weight: 600; color: #111827; }
  body.portal svg.qr { width: 132px; height: 132px; display: block; border: 1px solid #e5e7eb; border-radius: 8px; background: #fff; }
  body.portal ul.tree, body.portal ul.tree ul { list-style: none; margin: 0; padding-left: 18px; border-left: 2px solid #e5e7eb; }
  body.portal ul.tree { padding-left: 0; border-left: 0; } body.portal ul.tree li { margin: 6px 0; overflow-wrap: anywhere; }
  body.portal ul.tree .muted { margin-left: 6px; }
  body.portal fieldset { border: 1px solid #e5e7eb; border-radius: 10px; margin: 12px 0; min-width: 0; }
  body.portal table.prefs td, body.portal table.prefs th { vertical-align: middle; }
  body.portal table.prefs { max-width: 640px; }
  body.portal table.prefs th { font-weight: 500; }
  body.portal select { width: auto; padding: 7px 10px; font-size: 15px; background: #fff; border: 1px solid #d1d5db; border-radius: 8px; color: #111827; }
  body.portal .notice-card { max-width: 560px; margin: 40px auto; }
  body.portal .card section > h2:first-child { margin-top: 0; }
  body.portal section[data-section=payout-details] form, body.portal form.inline-form { max-width: 560px; }
  body.portal form.inline-form p { margin: 0 0 10px; } body.portal form.inline-form p.muted { margin-top: -4px; }
  body.portal figure.chart { max-width: 640px; }
  body.portal section[data-section=payout-details] form { margin-top: 8px; }
  @media (max-width: 700px) {
    body.portal header nav { padding: 8px 12px; }
    body.portal header nav strong { width: 100%; margin: 0 0 4px; }
    body.portal header .lang { margin-left: 0; }
    body.portal main.wide { margin: 16px auto; padding: 0 12px; }
    body.portal main.wide > h1 { font-size: 22px; }
    body.portal .metrics { grid-template-columns: 1fr; gap: 10px; }
    body.portal .metrics .value { font-size: 24px; }
    body.portal .card { padding: 16px; }
    body.portal .link-row { grid-template-columns: 1fr; }
    /* Lists as stacked rows on a phone: the amount (the numeric cell) on the right of each. */
    body.portal .card .table table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
    body.portal .card .table table.stack tr { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 2px 12px;
      padding: 10px 0; border-bottom: 1px solid #e5e7eb; }
    body.portal .card .table table.stack td { border: 0; padding: 0; grid-column: 1; }
    body.portal .card .table table.stack td.num { grid-column: 2; grid-row: 1; font-weight: 600; }
  }
`;

/** The signed-out pages (sign-in, code, notices): the common page with a centred card. */
export const PORTAL_SIGNED_OUT_STYLE = `
  body.portal-out { background: #f6f7f9; color: #111827; padding: 48px 16px;
    font-family: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  body.portal-out main { max-width: 420px; border: 1px solid #e5e7eb; border-radius: 16px; padding: 28px;
    box-shadow: 0 4px 16px rgba(16,24,40,.06); }
  body.portal-out .brand { font-weight: 700; font-size: 15px; color: #3730a3; margin: 0 0 18px; overflow-wrap: anywhere; }
  body.portal-out h1 { font-size: 22px; margin: 0 0 8px; }
  body.portal-out p.muted { color: #4b5563; }
  body.portal-out button[data-action=submit] { width: 100%; background: #4338ca; color: #fff; font-weight: 600; }
  body.portal-out input[autocomplete=one-time-code] { font-size: 22px; letter-spacing: .3em; text-align: center; }
  body.portal-out .lang { margin-top: 20px; font-size: 14px; } body.portal-out .lang a { margin-right: 10px; }
  body.portal-out .lang a[aria-current] { font-weight: 700; color: #111827; text-decoration: none; }
  @media (max-width: 480px) { body.portal-out { padding: 16px 10px; } body.portal-out main { padding: 20px; } }
`;
