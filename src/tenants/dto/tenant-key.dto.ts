import { IsString, Length } from 'class-validator';
import { Optional } from '../../common/validation/optional';

export class CreateTenantKeyDto {
  /** A label to tell keys apart. @example "production backend" */
  @Optional() @IsString() @Length(1, 200) name?: string;
}

export class TenantKeyResponse {
  /** @example "key_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ key_id: string;
  /** @example "production backend" */ name: string | null;
  /** The key's first characters, to recognise it. @example "tk_9sQmXb" */ key_hint: string;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
  /** @example null */ revoked_at: string | null;
}

export class CreatedTenantKeyResponse {
  /** @example "key_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ key_id: string;
  /** Shown only in this response. @example "tk_9sQmXbT1…" */ tenant_key: string;
  /** @example "production backend" */ name: string | null;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
}

export class TenantKeyListResponse {
  items: TenantKeyResponse[];
}
