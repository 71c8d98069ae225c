import type { ComponentChildren } from 'preact';

/** A form's token field: the session's `_csrf`, a sign-in form's pre-session token, consent's own. */
export function CsrfField({ value }: { value: string }) {
  return <input type="hidden" name="_csrf" value={value} />;
}

/** Hidden fields carrying `values` to the next step of a flow (the popup's parameters). */
export function HiddenFields({ values }: { values: Readonly<Record<string, string>> }) {
  return (
    <>
      {Object.entries(values).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
    </>
  );
}

/** The outcome of the last form post, as the page that follows it shows it. */
export function Messages({ notice, error }: { notice?: string; error?: string }) {
  return (
    <>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/** Lines of an error, each its own paragraph. */
export function ErrorLines({ lines }: { lines: readonly string[] }) {
  return (
    <>
      {lines.map((line) => (
        <p class="error">{line}</p>
      ))}
    </>
  );
}

/** A link that leads on from a page (an error page's way back). */
export function LinkOn({ href, children }: { href: string; children: ComponentChildren }) {
  return (
    <p>
      <a href={href}>{children}</a>
    </p>
  );
}
