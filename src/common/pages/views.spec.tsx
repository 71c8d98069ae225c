import { IsBoolean, IsString } from 'class-validator';
import { render } from 'preact-render-to-string';
import { ValidationFailedError } from '../errors/domain-error';
import { CsrfField, HiddenFields } from './components';
import { FormBody, FormCheckbox, FormLines, FormList, FormText } from './form';
import { jsonForScript } from './inline';
import { page } from './layout';
import { HtmlPage, Redirect } from './page';
import { prepareResult } from './send';

const HOSTILE = `</script><script>alert("x")</script>&'`;

describe('the view layer escapes by default', () => {
  it('escapes text and attribute values without anything being called by hand', () => {
    const html = render(
      <p title={HOSTILE} data-name={HOSTILE}>
        {HOSTILE}
      </p>,
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('</script>');
    // Text: `<` and `&` are entities; attributes: `"` cannot end the value.
    expect(html).toContain("&lt;/script>&lt;script>alert(&quot;x&quot;)&lt;/script>&amp;'</p>");
    expect(html).toContain(
      'title="&lt;/script>&lt;script>alert(&quot;x&quot;)&lt;/script>&amp;\'"',
    );
    expect(html).toContain('data-name="&lt;/script>');
  });

  it('escapes form fields, so a hostile value stays one attribute', () => {
    const html = render(
      <form>
        <CsrfField value={`a" onfocus="alert(1)`} />
        <HiddenFields values={{ state: '"><img src=x onerror=alert(1)>' }} />
      </form>,
    );
    expect(html).toContain(
      '<input type="hidden" name="_csrf" value="a&quot; onfocus=&quot;alert(1)"/>',
    );
    expect(html).toContain('value="&quot;>&lt;img src=x onerror=alert(1)>"');
    expect(html).not.toContain('<img');
  });

  it('renders a whole page: title escaped, the nonce on its style and script, data as JSON', () => {
    const result = page(
      { title: `<b>${HOSTILE}</b>`, script: 'void 0;', data: { state: HOSTILE } },
      <h1>{HOSTILE}</h1>,
    );
    const headers = new Map<string, string | string[]>();
    let status = 0;
    const res = {
      append: (name: string, value: string) => headers.set(name, value),
      setHeader: (name: string, value: string) => headers.set(name, value),
      removeHeader: (name: string) => headers.delete(name),
      status: (code: number) => ((status = code), res),
      location: (url: string) => headers.set('Location', url),
    };
    const html = prepareResult(res as never, result)!;
    expect(status).toBe(200);
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    const nonce = /script-src 'nonce-([^']+)'/.exec(
      String(headers.get('Content-Security-Policy')),
    )![1];
    expect(html).toContain(`<style nonce="${nonce}">`);
    expect(html).toContain(`<script nonce="${nonce}">void 0;</script>`);
    expect(html).toContain('<title>&lt;b>&lt;/script>');
    expect(html).toContain(
      `<script type="application/json" id="data">${jsonForScript({ state: HOSTILE })}</script>`,
    );
    // Exactly the page's two script elements: nothing of the hostile text became one.
    expect(html.match(/<script\b/g)).toHaveLength(2);
    expect(headers.get('X-Frame-Options')).toBe('DENY');
    expect(headers.get('Cache-Control')).toBe('no-store');
  });

  it('keeps JSON for a script inside its element', () => {
    const json = jsonForScript({ s: '</script><script>alert(1)</script>\u2028&' });
    expect(json).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(json)).toEqual({ s: '</script><script>alert(1)</script>\u2028&' });
  });

  it('sends a redirect with its cookies and no body', () => {
    const set: [string, string][] = [];
    let status = 0;
    const res = {
      append: (name: string, value: string) => set.push([name, value]),
      setHeader: (name: string, value: string) => set.push([name, value]),
      status: (code: number) => ((status = code), res),
      location: (url: string) => set.push(['Location', url]),
    };
    const body = prepareResult(res as never, new Redirect('/org').withCookies('a=1', 'b=2'));
    expect(body).toBeUndefined();
    expect(status).toBe(303);
    expect(set).toEqual([
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
      ['Location', '/org'],
    ]);
  });
});

describe('page forms', () => {
  // Like every DTO under `whitelist`, each field needs a rule, or it is dropped.
  class Form {
    @FormText() @IsString() name: string;
    @FormLines() @IsString({ each: true }) origins: string[];
    @FormList() @IsString({ each: true }) ids: string[];
    @FormCheckbox() @IsBoolean() enabled: boolean;
  }

  /** Runs FormBody's pipe on `body` as Nest does for a parameter of type Form. */
  async function parse(body: unknown): Promise<Form> {
    const factory = Reflect.getMetadata('__routeArguments__', Holder, 'handler') as Record<
      string,
      { pipes: { transform: (value: unknown, meta: unknown) => Promise<Form> }[] }
    >;
    const [{ pipes }] = Object.values(factory);
    return pipes[0].transform(body, { type: 'custom', metatype: Form, data: undefined });
  }
  class Holder {
    handler(@FormBody() _form: Form) {}
  }

  it('trims text, splits lines, lists repeated fields, reads checkboxes, drops other fields', async () => {
    const form = await parse({
      name: '  Ann ',
      origins: 'https://a.example\r\n\r\n https://b.example ',
      ids: 'one',
      _csrf: 'token',
      other: 'x',
    });
    expect({ ...form }).toEqual({
      name: 'Ann',
      origins: ['https://a.example', 'https://b.example'],
      ids: ['one'],
      enabled: false,
    });
    expect(await parse({ name: 'B', ids: ['1', '2'], enabled: 'on' })).toMatchObject({
      origins: [],
      ids: ['1', '2'],
      enabled: true,
    });
  });

  it('refuses what the DTO refuses, as the JSON API does', async () => {
    await expect(parse({ name: ['a', 'b'] })).rejects.toBeInstanceOf(ValidationFailedError);
  });

  it('HtmlPage carries its cookies', () => {
    const result = page({ title: 't' }, 'x').withCookies('c=1');
    expect(result).toBeInstanceOf(HtmlPage);
    expect(result.init.cookies).toEqual(['c=1']);
  });
});
