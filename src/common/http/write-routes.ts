import { applyDecorators, HttpCode, Post } from '@nestjs/common';
import type { Actor, StaffRole } from '../access/actor';
import { Admin } from '../access/access.decorators';
import { ApiProblems } from '../errors/problem.response';

type Problem = number | [number, string];

/**
 * A federation write (a controller under `@TenantKey()`): `POST path` answering 200, which can
 * refuse its body (400) and the tenant key (401 `invalid_tenant_key`) besides `problems`.
 */
export const FederationPost = (path: string, ...problems: Problem[]) =>
  applyDecorators(
    Post(path),
    HttpCode(200),
    ApiProblems(400, [401, 'invalid_tenant_key'], ...problems),
  );

/**
 * A staff write: `POST path` answering 200 for staff of at least `role`, which can refuse its body
 * (400), the credential (401) and the role (403) besides `problems`.
 */
export const AdminPost = (path: string, role: StaffRole, ...problems: Problem[]) =>
  applyDecorators(Post(path), HttpCode(200), Admin(role), ApiProblems(400, 401, 403, ...problems));

/**
 * Who makes a write that the Federation API and the Admin API both offer with the same body (a
 * lead's status, a conversion, a payout's settlement: docs/architecture.md, "One write, two
 * surfaces"). Such writes are defined once, in a class made for each surface.
 */
export interface WriteSurface {
  /** `POST path` on this surface; `role` is the least staff role the Admin API asks for. */
  post(path: string, role: StaffRole, ...problems: Problem[]): MethodDecorator;
  /**
   * `actor` when the caller is the tenant's staff (the Admin API), undefined for its back end:
   * what lead and conversion writes hand to the audit log (docs/architecture.md).
   */
  auditActor(actor: Actor): Actor | undefined;
}

/** The tenant's back end, with its tenant key: the role is not asked. */
export const FEDERATION: WriteSurface = {
  post: (path, _role, ...problems) => FederationPost(path, ...problems),
  auditActor: () => undefined,
};

/** The tenant's staff (or the platform admin), under `/admin/v1/tenants/:slug/…`. */
export const STAFF: WriteSurface = { post: AdminPost, auditActor: (actor) => actor };
