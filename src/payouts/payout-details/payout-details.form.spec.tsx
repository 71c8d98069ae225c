import { render } from 'preact-render-to-string';
import { PayoutDetailsForm } from './payout-details.form';

const HOSTILE = `</p><script>alert("x")</script>&'<img src=x onerror=alert(1)>`;

describe('the payout details form', () => {
  it('shows the stored details masked, and two forms that need no JavaScript', () => {
    const html = render(
      <PayoutDetailsForm
        action="/p/acme/payouts/details"
        csrf="tok"
        lang="en"
        current={{ method: 'bank_account', masked: '•••• 3000' }}
      />,
    );
    expect(html).toContain('data-payout-details="bank_account"');
    expect(html).toContain('•••• 3000');
    expect(html.match(/<form method="post" action="\/p\/acme\/payouts\/details"/g)).toHaveLength(2);
    expect(html.match(/name="_csrf" value="tok"/g)).toHaveLength(2);
    expect(html).toContain('name="method" value="bank_account"');
    expect(html).toContain('name="method" value="paypal"');
    for (const name of ['holder', 'iban', 'account', 'bik', 'email'])
      expect(html).toContain(`name="${name}"`);
    expect(html).toContain('type="email"');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('aria-invalid');
  });

  it('escapes hostile posted values and shows the field errors in the posted form', () => {
    const html = render(
      <PayoutDetailsForm
        action="/p/acme/payouts/details"
        csrf="tok"
        lang="ru"
        current={null}
        posted={{
          values: { method: 'bank_account', holder: HOSTILE, iban: 'DE00 1234' },
          errors: [{ field: 'iban', message: 'has wrong check digits' }],
        }}
      />,
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('value="&lt;/p>&lt;script>alert(&quot;x&quot;)&lt;/script>&amp;');
    expect(html).toContain('data-payout-details="none"');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('aria-describedby="pd-iban-error"');
    expect(html).toContain('id="pd-iban-error"');
    expect(html).toContain('IBAN: не сходятся контрольные цифры');
    expect(html).toContain('role="alert"');
    // The PayPal form keeps no value of the bank form.
    expect(html).toMatch(/id="pd-email" name="email" type="email" value autocomplete/);
  });
});
