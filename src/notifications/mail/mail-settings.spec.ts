import { TEMPLATE_TYPES, mailTemplatesError } from '../../tenants/mail-settings';
import { NOTIFICATION_TYPES } from '../notification-preference.entity';

describe('notifications.templates', () => {
  it('names exactly the partner mail types and the digest', () => {
    expect([...TEMPLATE_TYPES]).toEqual([...NOTIFICATION_TYPES, 'digest']);
  });

  it('refuses unknown types and fields, and line breaks', () => {
    expect(mailTemplatesError({ 'payout.paid': { subject: 'Paid, {name}' } })).toBeUndefined();
    expect(mailTemplatesError({ 'lead.created': { subject: 'x' } })).toMatch(/must be one of/);
    expect(mailTemplatesError({ digest: { body: 'x' } })).toMatch(/is not subject or intro/);
    expect(mailTemplatesError({ digest: { subject: 'a\r\nBcc: x' } })).toMatch(/CR or LF/);
  });
});
