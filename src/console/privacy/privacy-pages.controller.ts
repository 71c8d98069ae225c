import { HttpCode, Param, Post, StreamableFile } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { Equals, IsEmail, IsString, Length, MaxLength } from 'class-validator';
import { FormBody } from '../../common/pages/form';
import { Redirect, withQuery } from '../../common/pages/page';
import { Optional } from '../../common/validation/optional';
import { PrivacyService } from '../../privacy/privacy.service';
import {
  Org,
  OrgAction,
  type ConsoleCtx,
  OrgDownload,
  OrgDownloadsController,
  OrgPagesController,
} from '../org-page';
import { PRIVACY_TEXTS } from './privacy.i18n';
import { PrivacyDocs } from './privacy.openapi';

/** A form's field trimmed, and left out when blank. */
const Field = () =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.trim() || undefined : value,
  );

/** The confirmation of an erasure: the word ERASE typed. */
export class ConfirmErasureForm {
  @Field()
  @Equals('ERASE', { message: 'Type ERASE to confirm the erasure.' })
  confirm: string;
}

/** The leads page's customer erasure: at least one of the three (the service says so). */
export class EraseCustomerForm extends ConfirmErasureForm {
  @Field() @Optional() @IsEmail() @MaxLength(254) email?: string;
  @Field() @Optional() @IsString() @Length(3, 64) phone?: string;
  @Field() @Optional() @IsString() @Length(1, 200) external_id?: string;
}

/**
 * `POST /org/:slug/partners/:user_id/erase`: PrivacyService's erasure (docs/privacy.md), owner
 * only, confirmed by typing ERASE; audited as the Admin API's is.
 */
@OrgPagesController('partners')
export class PartnerPrivacyPagesController {
  constructor(private readonly privacy: PrivacyService) {}

  @Post(':user_id/erase')
  @HttpCode(303)
  @OrgAction('owner', 'partners/:user_id')
  @PrivacyDocs.erase()
  async erase(
    @Org() org: ConsoleCtx,
    @Param('user_id') userId: string,
    @FormBody() _form: ConfirmErasureForm,
  ): Promise<Redirect> {
    const erased = await this.privacy.eraseMember(org.tenant.id, userId, org.actor);
    const back = `/org/${org.tenant.slug}/partners/${encodeURIComponent(erased.user_id)}`;
    return new Redirect(withQuery(back, { notice: PRIVACY_TEXTS[org.fmt.lang].erased }));
  }
}

/** `POST /org/:slug/leads/erase-customer`: the customer erasure (docs/privacy.md), owner only. */
@OrgPagesController('leads')
export class CustomerPrivacyPagesController {
  constructor(private readonly privacy: PrivacyService) {}

  @Post('erase-customer')
  @HttpCode(303)
  @OrgAction('owner', 'leads')
  @PrivacyDocs.eraseCustomer()
  async eraseCustomer(
    @Org() org: ConsoleCtx,
    @FormBody() form: EraseCustomerForm,
  ): Promise<Redirect> {
    const { email, phone, external_id } = form;
    const counts = await this.privacy.eraseCustomer(
      org.tenant.id,
      { email, phone, external_id },
      org.actor,
    );
    const notice = PRIVACY_TEXTS[org.fmt.lang].customerErased(counts.leads, counts.conversions);
    return new Redirect(withQuery(`/org/${org.tenant.slug}/leads`, { notice }));
  }
}

/** `GET /org/:slug/partners/:user_id/personal-data.json`: the subject-access export, owner only. */
@OrgDownloadsController()
export class PersonalDataDownloadController {
  constructor(private readonly privacy: PrivacyService) {}

  @OrgDownload('partners/:user_id/personal-data.json', 'owner')
  @PrivacyDocs.personalData()
  async personalData(
    @Org() org: ConsoleCtx,
    @Param('user_id') userId: string,
  ): Promise<StreamableFile> {
    const data = await this.privacy.personalData(org.tenant.id, userId);
    return new StreamableFile(Buffer.from(JSON.stringify(data, null, 2)), {
      type: 'application/json; charset=utf-8',
      disposition: `attachment; filename="personal-data-${data.user_id}.json"`,
    });
  }
}
