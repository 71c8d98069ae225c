export class WidgetManifestResponse {
  /** The current build's version (a digest of the script). @example "3f2a9c0d1e4b5a6f" */
  version: string;
  /** Always the current build; cached for five minutes. @example "https://referrals.example/embed/v1/widget.js" */
  url: string;
  /** This build only, cached for a year (immutable). @example "https://referrals.example/embed/v1/widget.3f2a9c0d1e4b5a6f.js" */
  versioned_url: string;
  /** Subresource Integrity of the script, for the `integrity` attribute. @example "sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" */
  integrity: string;
  /** Size of the script. @example 41466 */
  bytes: number;
  /** Size gzipped, as served to browsers. @example 12476 */
  gzip_bytes: number;
}

export class WidgetOriginCheckResponse {
  /** The tenant slug asked about. @example "acme" */
  tenant: string;
  /** The origin the request came from, as the Embed APIs see it (null when none). @example "https://acme.example" */
  origin: string | null;
  /** Whether the Embed APIs accept requests of this tenant from this origin. @example false */
  allowed: boolean;
  /** Why not: `origin_not_allowed`, `tenant_not_found` or `validation_failed`. @example "origin_not_allowed" */
  code: string | null;
  /** A sentence for the tenant's developer. @example "Origin https://shop.example is not in the allowed_origins of tenant \"acme\"." */
  detail: string | null;
  /**
   * The tenant's locale (a BCP 47 tag) when allowed, else null: the widgets' locale on a page
   * that names none (no `data-locale`, no `lang`). @example "de-DE"
   */
  locale: string | null;
}
