/**
 * The mails an application sends (docs/partners.md, "Applications"), in ru and en. They never
 * repeat what the applicant typed (the name, the answers): anyone may submit any address, and a
 * mail must not carry a stranger's words to it. What they say comes from the tenant (its name,
 * the group's name) and the service.
 */
export type MailLang = 'ru' | 'en';

export interface Mail {
  subject: string;
  text: string;
}

export function confirmationMail(
  lang: MailLang,
  tenantName: string,
  groupName: string,
  link: string,
): Mail {
  if (lang === 'ru') {
    return {
      subject: `${tenantName}: подтвердите заявку партнёра`,
      text:
        `Кто-то подал заявку в партнёрскую программу «${tenantName}» (группа «${groupName}») ` +
        `с этим адресом.\n\nЧтобы подтвердить её, откройте ссылку и нажмите «Подтвердить»:\n${link}\n\n` +
        'Ссылка действует 24 часа. Если заявку подавали не вы, ничего не делайте: без ' +
        'подтверждения она не будет рассмотрена.',
    };
  }
  return {
    subject: `${tenantName}: confirm your partner application`,
    text:
      `Someone applied to the partner program of ${tenantName} (group "${groupName}") with this ` +
      `address.\n\nTo confirm the application, open the link and press "Confirm":\n${link}\n\n` +
      'The link is valid for 24 hours. If you did not apply, do nothing: an unconfirmed ' +
      'application is never reviewed.',
  };
}

export function alreadyPartnerMail(lang: MailLang, tenantName: string, portal: string): Mail {
  if (lang === 'ru') {
    return {
      subject: `${tenantName}: вы уже партнёр`,
      text:
        `С этим адресом подали заявку в партнёрскую программу «${tenantName}», но вы уже ` +
        `партнёр. Войдите в кабинет партнёра:\n${portal}\n\n` +
        'Если заявку подавали не вы, ничего не делайте.',
    };
  }
  return {
    subject: `${tenantName}: you are already a partner`,
    text:
      `Someone applied to the partner program of ${tenantName} with this address, but you are ` +
      `already a partner. Sign in to your partner portal:\n${portal}\n\n` +
      'If you did not apply, do nothing.',
  };
}
