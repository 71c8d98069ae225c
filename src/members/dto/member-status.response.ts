export class MemberStatusResponse {
  /** @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ service_user_id: string;
  /** Deactivated members are skipped by the cascade. @example false */ is_active: boolean;
  /** docs/privacy.md: the member's personal data was erased. @example false */ erased: boolean;
}
