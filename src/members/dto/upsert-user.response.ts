export class UpsertUserResponse {
  /** The surrogate id to pass as `:user_id` to the widgets and Embed Data API. @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  tenant_service_id: string;
  /** @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  service_user_id: string;
  /** `created`, `updated` (some field changed) or `unchanged`. @example "created" */
  action: 'created' | 'updated' | 'unchanged';
  /** The referrer in force, or null. @example "usr_01JD0Z5T1X7J2K3L4M5N6P7Q8R" */
  referrer_user_id: string | null;
}
