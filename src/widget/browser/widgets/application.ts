import { call, explain, type Failure } from '../api';
import type { Ctx } from '../context';
import { h } from '../dom';
import { head } from '../parts';
import type { ApplicationForm, SignupField } from '../types';

/**
 * The application form (docs/partners.md, "Applications") of the group `data-group` (default
 * `default`): name, email and the group's own questions, posted to the Embed endpoint with the
 * page's `?ref=` (the recruiting partner). The answer is the same whether or not the email is a
 * partner already: check your mail.
 */
export function application(c: Ctx): void {
  const group = c.el.getAttribute('data-group') || 'default';
  const ref = new URLSearchParams(location.search).get('ref');
  let fields: SignupField[] = [];
  let values: Record<string, string> = {};
  const id = (name: string) => `a-${name}`;

  const control = (f: SignupField, bad: boolean) => {
    const common = {
      id: id(f.name),
      name: f.name,
      required: f.required,
      'aria-invalid': bad ? 'true' : null,
      value: values[f.name] || '',
    };
    if (f.type === 'textarea') return h('textarea', { ...common, maxlength: 4000, rows: 4 });
    if (f.type === 'select') {
      return h(
        'select',
        common,
        h('option', { value: '' }, c.t('choose')),
        (f.options || []).map((o) => h('option', { value: o }, o)),
      );
    }
    return h('input', {
      ...common,
      type: f.type === 'url' ? 'url' : 'text',
      maxlength: 500,
    });
  };

  const form = (bad: Record<string, boolean>, note?: string) => {
    const labelled = (name: string, label: string, input: HTMLElement) => [
      h('label', { for: id(name) }, label),
      input,
    ];
    c.show(
      head(c, 'apply'),
      h(
        'form',
        { 'data-form': 'application', novalidate: true, onsubmit: (e) => void submit(e) },
        labelled(
          'full_name',
          c.t('name'),
          h('input', {
            id: id('full_name'),
            name: 'full_name',
            autocomplete: 'name',
            maxlength: 200,
            value: values.full_name || '',
            'aria-invalid': bad.full_name ? 'true' : null,
          }),
        ),
        labelled(
          'email',
          c.t('email'),
          h('input', {
            id: id('email'),
            name: 'email',
            type: 'email',
            autocomplete: 'email',
            maxlength: 254,
            value: values.email || '',
            'aria-invalid': bad.email ? 'true' : null,
          }),
        ),
        fields.map((f) =>
          labelled(
            f.name,
            f.required ? f.label : `${f.label} ${c.t('optional')}`,
            control(f, !!bad[f.name]),
          ),
        ),
        note ? h('p', { class: 'err', role: 'alert', 'data-part': 'error' }, note) : null,
        h(
          'button',
          { type: 'submit', class: 'btn primary', part: 'button', 'data-action': 'submit' },
          c.t('applySend'),
        ),
      ),
    );
  };

  async function submit(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    const el = e.target as HTMLFormElement;
    const read = (name: string) =>
      ((el.elements.namedItem(name) as HTMLInputElement | null)?.value || '').trim();
    values = { full_name: read('full_name'), email: read('email') };
    const answers: Record<string, string> = {};
    for (const f of fields) {
      values[f.name] = read(f.name);
      if (values[f.name]) answers[f.name] = values[f.name];
    }
    if (!values.full_name) return form({ full_name: true }, c.t('needName'));
    if (!/^[^\s@]+@[^\s@]+$/.test(values.email)) return form({ email: true }, c.t('needEmail'));
    el.querySelector('button')!.disabled = true;
    c.state('loading');
    const body: Record<string, unknown> = {
      group,
      email: values.email,
      full_name: values.full_name,
      answers,
    };
    if (ref) body.ref = ref;
    try {
      await call(c, 'applications', null, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      c.state('sent');
      c.show(head(c, 'apply'), h('p', { role: 'status', 'data-part': 'sent' }, c.t('applied')));
    } catch (err) {
      const f = err as Failure;
      c.state('error');
      if (f?.code === 'invalid_ref' || f?.code === 'ref_expired') return form({}, c.t('badRef'));
      if (f?.code === 'rate_limited') return form({}, c.t('limited'));
      if (f?.code === 'validation_failed') {
        const bad: Record<string, boolean> = {};
        for (const x of f.errors || []) bad[x.field.replace(/^answers\./, '')] = true;
        return form(bad, c.t('fixFields'));
      }
      form({}, explain(c, f));
    }
  }

  c.state('loading');
  call<ApplicationForm>(c, 'applications/form', { group })
    .then((answer) => {
      fields = answer.fields;
      c.state('ready');
      form({});
    })
    .catch((err: Failure) => {
      c.state('error');
      c.show(
        head(c, 'apply'),
        h(
          'p',
          { class: 'err', role: 'alert', 'data-part': 'error' },
          err?.code === 'group_not_found' ? c.t('closed') : explain(c, err),
        ),
      );
    });
}
