import { create } from 'qrcode';

/** The quiet zone around a QR code, in modules (ISO/IEC 18004 asks for 4). */
const QUIET = 4;

/**
 * A QR code of `text` as inline SVG, drawn on the server from the `qrcode` package's module
 * matrix (no script, no image request): one path of the dark modules, so it prints and scales
 * cleanly. `label` is what a screen reader says of it.
 */
export function QrCode(props: { text: string; label: string }) {
  const { modules } = create(props.text, { errorCorrectionLevel: 'M' });
  const size = modules.size + QUIET * 2;
  let d = '';
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      if (modules.get(row, col)) d += `M${col + QUIET} ${row + QUIET}h1v1h-1z`;
    }
  }
  return (
    <svg
      class="qr"
      viewBox={`0 0 ${size} ${size}`}
      role="img"
      aria-label={props.label}
      shape-rendering="crispEdges"
      data-qr={props.text}
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={d} fill="#111827" />
    </svg>
  );
}
