/**
 * The only places a page puts text into the document unescaped: its style sheet and script, each
 * a constant of the code (never data), run with the response's nonce; and data for a script as
 * JSON that cannot end its element. ESLint keeps `dangerouslySetInnerHTML` in this folder.
 */

/**
 * JSON safe inside `<script type="application/json">`: `<`, `>`, `&` and the JS line separators
 * are escaped, so a value such as `</script><script>alert(1)` cannot end the element.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A style sheet of the code's own, under the response's nonce. */
export function InlineStyle({ nonce, css }: { nonce: string; css: string }) {
  return <style nonce={nonce} dangerouslySetInnerHTML={{ __html: css }} />;
}

/** A script of the code's own (a module constant, never data), under the response's nonce. */
export function InlineScript({ nonce, code }: { nonce: string; code: string }) {
  return <script nonce={nonce} dangerouslySetInnerHTML={{ __html: code }} />;
}

/** Data for the page's script, read with `JSON.parse(document.getElementById(id).textContent)`. */
export function ScriptData({ id, value }: { id: string; value: unknown }) {
  return (
    <script
      type="application/json"
      id={id}
      dangerouslySetInnerHTML={{ __html: jsonForScript(value) }}
    />
  );
}
