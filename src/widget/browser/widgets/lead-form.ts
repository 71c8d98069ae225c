import { call, explain, type Failure } from '../api';
import type { Ctx } from '../context';
import { h } from '../dom';
import { head } from '../parts';
import type { LeadCreated } from '../types';

type Field = 'name' | 'email' | 'phone';

/**
 * The lead form for the partner named by the page's `?ref=`: name, email, phone (email or phone
 * required). A sent lead fires `service-widget:lead`, which reloads the page's lead lists.
 */
export function leadForm(c: Ctx): void {
  const ref = new URLSearchParams(location.search).get('ref');
  if (!ref) {
    c.state('empty');
    return c.show(head(c, 'form'), h('p', { class: 'muted', 'data-part': 'no-ref' }, c.t('noRef')));
  }
  let values: Record<Field, string> = { name: '', email: '', phone: '' };
  const field = (name: Field, type: string, auto: string, err: unknown) => [
    h('label', { for: `f-${name}` }, c.t(name)),
    h('input', {
      id: `f-${name}`,
      name,
      type,
      autocomplete: auto,
      value: values[name],
      maxlength: name === 'phone' ? 32 : 200,
      'aria-invalid': err ? 'true' : null,
    }),
  ];
  const form = (errors: { name?: unknown; contact?: unknown }, note?: string) => {
    c.show(
      head(c, 'form'),
      h(
        'form',
        {
          'data-form': 'lead',
          novalidate: true,
          onsubmit: (e) => void submit(e),
          oninput: (e) => {
            const note = (e.currentTarget as HTMLFormElement).querySelector('[data-part=error]');
            if (note) note.remove();
          },
        },
        field('name', 'text', 'name', errors.name),
        field('email', 'email', 'email', errors.contact),
        field('phone', 'tel', 'tel', errors.contact),
        note ? h('p', { class: 'err', role: 'alert', 'data-part': 'error' }, note) : null,
        h(
          'button',
          { type: 'submit', class: 'btn primary', part: 'button', 'data-action': 'submit' },
          c.t('send'),
        ),
      ),
    );
  };
  async function submit(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    const formEl = e.target as HTMLFormElement;
    const f = (name: Field) => (formEl.elements.namedItem(name) as HTMLInputElement).value.trim();
    values = { name: f('name'), email: f('email'), phone: f('phone') };
    if (!values.name) return form({ name: 1 }, c.t('needName'));
    if (!values.email && !values.phone) return form({ contact: 1 }, c.t('needContact'));
    formEl.querySelector('button')!.disabled = true;
    c.state('loading');
    const contact: Partial<Record<Field, string>> = { name: values.name };
    if (values.email) contact.email = values.email;
    if (values.phone) contact.phone = values.phone;
    const body: Record<string, unknown> = { ref, contact };
    if (c.el.getAttribute('data-offer-id')) body.offer_id = c.el.getAttribute('data-offer-id');
    try {
      const lead = await call<LeadCreated>(c, 'data/leads', null, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      c.state('sent');
      c.show(
        head(c, 'form'),
        h('p', { role: 'status', 'data-part': 'sent' }, c.t('sent')),
        h(
          'button',
          {
            type: 'button',
            class: 'btn',
            'data-action': 'again',
            onclick: () => {
              values = { name: '', email: '', phone: '' };
              c.state('ready');
              form({});
            },
          },
          c.t('again'),
        ),
      );
      window.dispatchEvent(
        new CustomEvent('service-widget:lead', {
          detail: { tenant: c.tenant, lead_id: lead.lead_id },
        }),
      );
    } catch (err) {
      const e = err as Failure;
      c.state('error');
      if (e?.code === 'invalid_ref') return form({}, c.t('badRef'));
      if (e?.code === 'rate_limited') return form({}, c.t('limited'));
      if (e?.code === 'validation_failed') {
        const bad = (e.errors || []).map((x) => x.field);
        return form(
          {
            name: bad.includes('contact.name'),
            contact: bad.some((x) => /email|phone/.test(x)),
          },
          (e.errors || []).map((x) => `${x.field}: ${x.message}`).join('; ') || c.t('err'),
        );
      }
      form({}, explain(c, e));
    }
  }
  c.state('ready');
  form({});
}
